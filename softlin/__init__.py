"""softlin: verify "Softmax as Linear Attention in the Large-Prompt Regime" (Boursier & Boyer).

Layers, one direction only: derivations (SymPy) -> numerics (NumPy/SciPy/mpmath, imports the
emitted kernels) -> claims (checks and certificates) -> reports (rendered from certificates).
"""

__version__ = "0.1.0"
