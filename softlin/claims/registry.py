"""All claims by id, in the order of the paper (then the extensions). A new claim is one entry in
ORDER (its module, which defines CLAIM).

The claim modules import SymPy, SciPy and the derivations: `softlin --help` must not pay for them,
so the modules are imported the first time CLAIMS is read (a module-level __getattr__, PEP 562)."""

from __future__ import annotations

import importlib

from .base import Claim

ORDER = (
    "limit.lemma21",  # section 2
    "prop31.claim",  # section 3: output concentration
    "asm33.claim",
    "prop34.claim",  # section 3: gradient concentration
    "thm43.claim",
    "thm52",  # sections 4 and 5
    "limit.mixture",  # extension: Gaussian-mixture tokens
    "finite_prompt.claim",  # extension: exact 1/L risk of the authors' scalar model
    "authors.claim",  # the authors' experiment at CPU scale
)


def __getattr__(name: str):
    """CLAIMS, built on first use and then kept as an ordinary module attribute (so that tests can
    replace it with monkeypatch.setattr)."""
    if name == "CLAIMS":
        modules = [importlib.import_module(f"{__package__}.{m}") for m in ORDER]
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
        tree = ast.parse(open(find_spec(f"{__package__}.{name}").origin, encoding="utf-8").read())
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
