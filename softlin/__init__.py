"""softlin: verify "Softmax as Linear Attention in the Large-Prompt Regime" (Boursier & Boyer).

Layers, one direction only (docs/design.md): derivations (SymPy; top-level `derivations/`) ->
kernels (emitted, `numerics/kernels/`) -> numerics (NumPy/SciPy/mpmath; top-level `numerics/`) ->
claims (checks and certificates) -> execute (one way to run a claim) -> render (pages from
certificates) -> sweep -> hunt -> cli -> api. The leaf modules `certio` (certificate bytes) and
`mathml` (formula markup) import nothing from softlin.

`softlin.verify` is the Python API (softlin/api.py). It imports the API when called, so that
`import softlin` stays cheap (no NumPy, no SymPy).
"""

__version__ = "0.1.0"


def verify(claim, *, scenario=None, profile="standard", seed=0, out=None):
    """Run a claim and return its certificate (`softlin.api.verify`, which documents the
    arguments): `softlin.verify("lemma-2.1", profile="quick").status`."""
    from .api import verify as run_claim

    return run_claim(claim, scenario=scenario, profile=profile, seed=seed, out=out)
