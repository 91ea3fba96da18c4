"""Hypothesis profiles (docs/design.md): `dev` (default, fast), `ci` (the same number of examples,
derandomised so CI cannot flake; more would not fit the default run's 3-minute budget), `repro`
(derandomised, few examples, for bisecting). Select with SOFTLIN_HYPOTHESIS_PROFILE."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "repro",
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("SOFTLIN_HYPOTHESIS_PROFILE", "dev"))


def _rotation_key(item) -> str:
    group = item.get_closest_marker("xdist_group")
    return (
        f"group:{group.args[0] if group.args else group.kwargs.get('name')}"
        if group
        else item.nodeid
    )


def pytest_configure(config):
    """SOFTLIN_ROTATION=head (set by .ci/run) or a share's number: one share of the `rotating`
    tests (tests/rotation.py). The proofs are cached by content hash in .pytest_cache/softlin-proofs
    (derivations/proof_cache.py; ignored by git), shared by the xdist workers, which inherit the
    variable; unless it is already set (empty: off)."""
    if "SOFTLIN_PROOF_CACHE" not in os.environ:
        os.environ["SOFTLIN_PROOF_CACHE"] = str(
            config.rootpath / ".pytest_cache" / "softlin-proofs"
        )
    config._softlin_rotation = None, None
    chosen = os.environ.get("SOFTLIN_ROTATION", "")
    if chosen:
        from tests import rotation

        config._softlin_rotation = rotation.turn(chosen)


# Files holding the slow tier's longest tests (1 to 7 minutes each in CI's rehearsals: the mutant
# share, the certificates' check under other BLAS, the hunt-space runs), run first. xdist hands
# tests out in collection order, and collected alphabetically these came last, where a long test
# can leave one worker finishing it alone; first, the short tests fill in around them.
RUN_FIRST = (
    "tests/test_mutants.py",
    "tests/test_reliability.py",
    "tests/claims/test_reach.py",
    "tests/test_hunt.py",
)


def _schedule_rank(item) -> int:
    path = item.nodeid.split("::")[0]
    return RUN_FIRST.index(path) if path in RUN_FIRST else len(RUN_FIRST)


def pytest_collection_modifyitems(config, items):
    from tests import rotation

    items.sort(key=_schedule_rank)  # stable: the rest keeps its collection order
    share, _ = config._softlin_rotation
    if share is None:
        return
    kept, dropped = [], []
    for item in items:
        off = (
            item.get_closest_marker("rotating") and rotation.share_of(_rotation_key(item)) != share
        )
        (dropped if off else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_report_header(config):
    why = config._softlin_rotation[1]
    return [f"softlin: {why}"] if why else []
