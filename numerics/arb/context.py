"""The working precision of Arb, set for one block and restored after it.

python-flint keeps one working precision for the whole process (`flint.ctx.prec`, a field of one
global context object read by every arb and acb operation; it is not per thread). A module that
assigns it and forgets to restore it, or restores it only on the normal path, changes the precision
of every later computation, and two threads that set different precisions see each other's. So no
module but this one touches `flint.ctx.prec` (tests/numerics/test_arb_toolkit.py greps for it), and
every ball computation runs inside `with precision(bits):`.

The precision changes only the widths of the balls, never whether they contain the exact values
(every Arb operation returns a ball containing the exact result at any precision); what a stray
precision breaks is reproducibility: a certificate's intervals would depend on what ran before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flint import ctx


@contextmanager
def precision(bits: int) -> Iterator[None]:
    """Arb's working precision set to `bits` for the block, and the previous precision restored on
    leaving it, normally or by an exception."""
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old
