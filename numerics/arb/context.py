"""The working precision of Arb, set for one block and restored after it.

python-flint keeps one working precision for the whole process: `flint.ctx.prec` is a field of one
global context object, read by every arb and acb operation in every thread (it is not per thread;
`flint.ctx.workprec` saves and restores that same field). A module that assigns it and forgets to
restore it, or restores it only on the normal path, changes the precision of every later
computation; two threads that set different precisions see each other's. So no module but this one
touches `flint.ctx.prec` (tests/numerics/test_arb_toolkit.py greps for it), and every ball
computation of the enclosure modules runs inside `with precision(bits):`.

Threads (a Dask worker runs tasks on several): `precision` holds one process-wide re-entrant lock
for its whole block, so two blocks in two threads run one after the other and each sees its own
precision throughout; a block nested in a block of the same thread sets and restores its own. The
lock costs little: python-flint holds the GIL while it computes and calls back into Python for
every integrand evaluation, so two Arb computations never ran in parallel anyway. What the lock does
not cover: arb operations a caller does outside any block (a claim multiplying a returned ball by an
integer, say) run at whatever precision is current, which may be another thread's inside its block.

The precision changes only the widths of the balls, never whether they contain the exact values
(every Arb operation returns a ball that contains the exact result, at any precision); what a stray
precision breaks is reproducibility: a certificate's intervals would depend on what ran before or
beside.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flint import ctx

_LOCK = threading.RLock()


@contextmanager
def precision(bits: int) -> Iterator[None]:
    """Arb's working precision set to `bits` for the block, and the previous precision restored on
    leaving it, normally or by an exception; no other thread's block runs meanwhile."""
    with _LOCK:
        old = ctx.prec
        ctx.prec = bits
        try:
            yield
        finally:
            ctx.prec = old
