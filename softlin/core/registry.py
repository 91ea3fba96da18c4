"""All claims by id, in the order of the paper (then the extensions). A new claim is one entry in
ORDER, its id: its package is softlin.claims.<id with "-" and "." as "_">, whose module `claim`
defines CLAIM (`module_of`).

The claim modules import SymPy, SciPy and the derivations: `softlin --help` must not pay for them,
so the modules are imported the first time CLAIMS is read (a module-level __getattr__, PEP 562)."""

from __future__ import annotations

import importlib

from .claim import Claim

ORDER = (
    "lemma-2.1",  # section 2
    "prop-3.1",  # section 3: output concentration
    "asm-3.3",
    "prop-3.4",  # section 3: gradient concentration
    "thm-4.3",
    "thm-5.2",  # sections 4 and 5
    "mixture",  # extension: Gaussian-mixture tokens
    "finite-prompt-risk",  # extension: exact 1/L risk of the authors' scalar model
    "authors-experiment",  # the authors' experiment at CPU scale
)


def module_of(claim_id: str) -> str:
    """The module that declares a claim: softlin.claims.<package named after its id>.claim."""
    return "softlin.claims." + claim_id.replace("-", "_").replace(".", "_") + ".claim"


def __getattr__(name: str):
    """CLAIMS, built on first use and then kept as an ordinary module attribute (so that tests can
    replace it with monkeypatch.setattr)."""
    if name == "CLAIMS":
        modules = [importlib.import_module(module_of(m)) for m in ORDER]
        claims = {module.CLAIM.id: module.CLAIM for module in modules}
        check_rests_on(claims)
        globals()["CLAIMS"] = claims
        return claims
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_rests_on(claims: dict[str, Claim]) -> None:
    """Every claim rests only on registered claims that come before it in ORDER (so the graph has no
    cycle and the paper's order is a valid reading order)."""
    seen: set[str] = set()
    for cid, claim in claims.items():
        for dep in claim.rests_on:
            if dep not in claims:
                raise ValueError(f"claim {cid} rests on {dep!r}, which is not a registered claim")
            if dep not in seen:
                raise ValueError(
                    f"claim {cid} rests on {dep}, which does not come before it in ORDER"
                )
        seen.add(cid)


def _loaded() -> dict[str, Claim]:
    return globals()["CLAIMS"] if "CLAIMS" in globals() else __getattr__("CLAIMS")


def headlines() -> list[tuple[str, str]]:
    """(id, title) of every claim in ORDER, read from the modules' literal `ID` and `TITLE`
    constants without importing them (`softlin list` in well under a second); once CLAIMS is loaded,
    from it."""
    if "CLAIMS" in globals():
        return [(c.id, c.title) for c in globals()["CLAIMS"].values()]
    import ast
    from importlib.util import find_spec

    out = []
    for name in ORDER:
        tree = ast.parse(open(find_spec(module_of(name)).origin, encoding="utf-8").read())
        found = {
            t.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name) and t.id in ("ID", "TITLE")
        }
        out.append((ast.literal_eval(found["ID"]), ast.literal_eval(found["TITLE"])))
    return out


def get(claim_id: str) -> Claim:
    claims = _loaded()
    try:
        return claims[claim_id]
    except KeyError:
        raise ValueError(f"unknown claim id {claim_id!r} (known: {', '.join(claims)})") from None
