"""Numeric kernels emitted from the SymPy derivations
(see `_generated.py`, never edit it by hand)."""

from ._generated import *  # noqa: F401,F403
from ._generated import INPUT_HASH, KERNELS  # noqa: F401
