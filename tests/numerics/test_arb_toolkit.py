"""The Arb toolkit (numerics/arb/): Arb's working precision is set only through `precision`, which
restores it however its block ends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flint import arb, ctx

from softlin.numerics.arb import precision

REPO = Path(__file__).resolve().parents[2]
# an assignment to, or a context of, flint's global precision (ctx.prec = ..., ctx.workprec(...),
# ctx.dps, extraprec, ...)
SETS_PRECISION = re.compile(r"\bctx\s*\.\s*(prec|dps|workprec|workdps|extraprec|extradps)\b")


def _python_files():
    for folder in ("softlin", "numerics", "derivations", "tests", "benchmarks"):
        for path in (REPO / folder).rglob("*.py"):
            if ".venv" not in path.parts and "__pycache__" not in path.parts:
                yield path


def test_only_the_toolkit_touches_flints_global_precision():
    here = Path(__file__).resolve()
    toolkit = REPO / "numerics" / "arb"
    offenders, in_toolkit = [], []
    for path in _python_files():
        if path == here:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if SETS_PRECISION.search(line):
                where = f"{path.relative_to(REPO)}:{n}: {line.strip()}"
                (in_toolkit if toolkit in path.parents else offenders).append(where)
    assert not offenders, "set Arb's precision with numerics.arb.precision:\n" + "\n".join(
        offenders
    )
    # the pattern has power: it finds the toolkit's own save and restore
    assert any("context.py" in w for w in in_toolkit), in_toolkit


def test_precision_is_set_in_the_block_and_restored_after_it():
    before = ctx.prec
    with precision(before + 77):
        assert ctx.prec == before + 77
        with precision(200):  # nested: its own, then the outer one's again
            assert ctx.prec == 200
        assert ctx.prec == before + 77
    assert ctx.prec == before


def test_precision_is_restored_when_the_block_raises():
    before = ctx.prec
    with pytest.raises(ZeroDivisionError):
        with precision(before + 41):
            assert ctx.prec == before + 41
            1 / 0
    assert ctx.prec == before
    # and the precision did act inside: 1/3 at 20 bits is a wider ball than at 200
    with precision(20):
        coarse = arb(1) / 3
    with precision(200):
        fine = arb(1) / 3
    assert coarse.rad() > 1e-7 > 1e-50 > fine.rad()


def test_two_threads_with_two_precisions_each_see_their_own():
    """flint's precision is one global of the process (not per thread): without the toolkit's lock
    the second thread's block would set it while the first one's runs (each block here waits in the
    middle, so their blocks would overlap), and one of them would see the other's precision."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    inside = threading.Barrier(2, timeout=0.5)

    def work(bits: int) -> tuple[list[int], bool]:
        seen, overlapped = [], False
        with precision(bits):
            try:  # both threads inside a block at once: only possible without the lock
                inside.wait()
                overlapped = True
            except threading.BrokenBarrierError:
                pass
            for _ in range(20):
                seen.append(ctx.prec)
                time.sleep(0.002)
        return seen, overlapped

    before = ctx.prec
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(work, (80, 160)))
    assert ctx.prec == before
    for bits, (seen, overlapped) in zip((80, 160), results):
        assert not overlapped and seen == [bits] * 20, (bits, seen)
