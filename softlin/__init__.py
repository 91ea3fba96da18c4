"""softlin: verify "Softmax as Linear Attention in the Large-Prompt Regime" (Boursier & Boyer).

Layers, one direction only (docs/design.md): derivations (SymPy; top-level `derivations/`) ->
kernels (emitted, `numerics/kernels/`) -> numerics (NumPy/SciPy/mpmath; top-level `numerics/`) ->
claims (checks and certificates) -> render (pages from certificates) -> cli. The leaf modules
`certio` (certificate bytes) and `mathml` (formula markup) import nothing from softlin.
"""

__version__ = "0.1.0"
