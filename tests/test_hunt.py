"""`softlin hunt` (softlin/cli/hunt.py, softlin/hunt/search.py, each claim's `hunt` Space in
softlin/core/hunt_space.py, its strategy in softlin/claims/shared/hunt_strategies.py): the spaces
draw scenarios that
round-trip through TOML and validate (or are classified), a failure is found, shrunk and written so
that `verify --scenario` reads it, exit codes follow `verify`. The default tests use a stand-in
claim run (fast, and its failure set is known); the slow tier injects wrong formulas into the real
claims."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from softlin import cli
from softlin.cli import hunt as cli_hunt
from softlin.core import registry, scenario as scen
from softlin.claims.lemma_2_1 import claim as lemma21
from softlin.claims.shared.gaussian_subject import gaussian_subject
from softlin.judge.check import Check, check_false_alarm
from softlin.core.claim import certificate, claim_rng
from softlin.core.findings import Findings
from softlin.hunt.scenario_toml import to_toml
from softlin.hunt.search import classify, supported
from softlin.numerics.validate import BeyondReach

REPO = Path(__file__).resolve().parents[1]

FAST = settings(
    max_examples=25,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)


def test_the_supported_claims_declare_a_space_and_another_is_refused_naming_them(monkeypatch):
    assert supported() == tuple(cid for cid, c in registry.CLAIMS.items() if c.hunt is not None)
    assert "asm-3.3" in supported()
    without = dataclasses.replace(registry.get("asm-3.3"), hunt=None)
    monkeypatch.setitem(registry.CLAIMS, "asm-3.3", without)
    assert "asm-3.3" not in supported()
    args = cli.build_parser().parse_args(["hunt", "asm-3.3"])
    refused = r"hunt does not support 'asm-3.3' yet \(supported: lemma-2.1, prop-3.1"
    with pytest.raises(ValueError, match=refused):
        cli_hunt.check_args(args)


@pytest.mark.parametrize("claim_id", supported())
def test_drawn_scenarios_round_trip_through_toml_and_reach_every_region_and_the_outside(
    claim_id, tmp_path
):
    """60 derandomised draws per claim: each round-trips through TOML, validates or is classified
    with a reason, carries the region label of its validated scenario, and every region (and the
    outside of the hypotheses, where the space reaches it) is drawn."""
    claim, seen = registry.get(claim_id), set()
    space = claim.hunt

    @settings(FAST, max_examples=60)
    @given(space.scenarios("quick"))
    def check(user):
        path = tmp_path / "s.toml"
        path.write_text(to_toml(user, "a comment"))
        assert scen.load_toml(path) == user
        merged, label = classify(claim, user, "quick")
        seen.add(label if merged is not None else "outside")
        if merged is not None:
            validated = (claim.validate or scen.common)(merged)
            if "cov" in validated:
                assert np.min(np.linalg.eigvalsh(validated["cov"])) >= -1e-12  # PSD, as drawn
            assert label == space.region(validated)

    check()
    # the regions the space declares it reaches, and the outside unless it draws only inside
    assert set(space.regions) | ({"outside"} if space.draws_outside else set()) <= seen
    assert space.regions


def test_scenarios_outside_the_routes_are_classified_with_the_reason():
    user = {
        "d": 4,
        "cov": np.eye(4).tolist(),
        "mean": [0.0] * 4,
        "U": np.zeros((4, 4)).tolist(),
        "V": [[1.0, 0, 0, 0]],
        "query_cov": np.eye(4).tolist(),
        "L": [4],
        "trials": 800,
        "delta": 1e-3,
    }
    merged, reason = classify(registry.get("lemma-2.1"), user, "quick")
    assert merged is None and reason.startswith("cov has rank #: lemma-2.1's")


def _stand_in(monkeypatch, verdict):
    """lemma-2.1 with its run replaced by `verdict(scenario) -> list of (kind, passed)` (fast)."""

    def run(s, profile, rng):
        from softlin.judge import kinds, levels

        # value 0 passes, 2 fails, NaN is undecided against the bound 1 (the judge's rule)
        checks = [
            kinds.verdict(
                f"check {i}",
                kind,
                value={True: 0.0, False: 2.0, None: float("nan")}[passed],
                bound=1.0,
                rule="value <= bound",
                tier="statistical" if kind == "control" else "",
                id=f"check-{i}",
                unit="|z|",
                false_alarm=levels.nominal(check_false_alarm(), "a stand-in"),
            )
            for i, (kind, passed) in enumerate(verdict(s))
        ]
        return certificate(
            lemma21.CLAIM, scen.for_certificate(s), profile, s["seed"], Findings(checks)
        )

    # setting=None: the stand-in reads the merged scenario, not lemma-2.1's Setting
    stand_in = dataclasses.replace(lemma21.CLAIM, run=run, setting=None)
    monkeypatch.setitem(registry.CLAIMS, "lemma-2.1", stand_in)


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
def test_a_failure_is_found_shrunk_to_a_minimal_scenario_and_written(monkeypatch, tmp_path, capsys):
    # fails iff some entry of U exceeds 0.3: shrunk, U has one non-zero entry 0.375 (the smallest
    # grid value above 0.3) and the other drawn matrices are as small as the classification allows
    _stand_in(monkeypatch, lambda s: [("montecarlo", not np.any(np.asarray(s["U"]) > 0.3))])
    assert (
        cli.main(
            [
                "hunt",
                "lemma-2.1",
                "--examples",
                "50",
                "--max-shrink",
                "2000",
                "--out",
                str(tmp_path),
            ]
        )
        == 1
    )
    out = json.loads((tmp_path / "lemma-2.1.json").read_text())
    assert out["result"] == "counterexample" and out["runs"] <= 50
    user = scen.load_toml(tmp_path / "lemma-2.1-counterexample.toml")
    U = np.asarray(user["U"])
    assert (
        sorted(U.ravel())[-1] == 0.375
        and np.count_nonzero(U) == 1
        and user == out["counterexample"]["scenario"]
    )
    # the failure depends on U alone: the shrinker takes every other drawn matrix to 0
    assert not np.any(user["cov"]) and not np.any(user["mean"]) and user["L"] == [4]
    failing = json.loads((tmp_path / "lemma-2.1-counterexample.json").read_text())
    assert [c["id"] for c in failing] == ["lemma-2.1/check-0"]
    assert "counterexample" in capsys.readouterr().out


def test_nothing_found_exits_0_and_accounts_for_every_draw(monkeypatch, tmp_path, capsys):
    _stand_in(
        monkeypatch, lambda s: [("montecarlo", True), ("montecarlo", True), ("montecarlo", True)]
    )
    assert (
        cli.main(["hunt", "lemma-2.1", "--examples", "20", "--out", str(tmp_path), "--json", "-"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == "nothing found" and "counterexample" not in out
    assert (
        out["runs"] + sum(out["outside_hypotheses"].values())
        == 20
        == sum(out["regions"].values()) + sum(out["outside_hypotheses"].values())
    )
    assert (
        out["false_alarm"]["stated"] == pytest.approx(20 * 3e-6)
        and out["false_alarm"]["level"] == 1e-3
    )
    assert out["false_alarm"]["family_wise"] == pytest.approx(out["runs"] * 3e-6)
    # the code the verdict is about: the derivations' hash and, in a git checkout, the commit
    from softlin.numerics import kernels

    assert out["provenance"]["kernels_input_hash"] == kernels.INPUT_HASH
    commit = out["provenance"]["source_commit"]
    in_checkout = (Path(__file__).resolve().parents[1] / ".git").exists()
    assert (commit is None and not in_checkout) or re.fullmatch(
        r"[0-9a-f]{40}(\+changes)?", commit
    ), commit


def test_the_stated_family_wise_level_sets_each_checks_level(monkeypatch, tmp_path, capsys):
    """--false-alarm A with N examples of k statistical checks runs every check at A / (N k): the
    certificates the stand-in claim writes report that level (base.false_alarm_level reached it)."""
    seen = []

    def verdict(s):
        seen.append(check_false_alarm())
        return [("montecarlo", True)] * 3

    _stand_in(monkeypatch, verdict)
    assert (
        cli.main(
            [
                "hunt",
                "lemma-2.1",
                "--examples",
                "20",
                "--false-alarm",
                "1e-5",
                "--out",
                str(tmp_path),
                "--json",
                "-",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert seen and all(a == pytest.approx(1e-5 / 60) for a in seen)
    assert out["false_alarm"]["per_check"] == pytest.approx(1e-5 / 60)
    assert out["false_alarm"]["stated"] == pytest.approx(1e-5)
    assert out["false_alarm"]["family_wise"] == pytest.approx(out["runs"] * 3 * 1e-5 / 60)
    assert out["false_alarm"]["family_wise"] <= 1e-5
    assert check_false_alarm() == 1e-6  # restored after the hunt


def test_a_structural_limit_met_during_a_run_is_counted_outside_not_a_crash(
    monkeypatch, tmp_path, capsys
):
    """BeyondReach raised by a run (thm-4.3's flows leaving the exact route's tables) is counted
    outside the hypotheses under its reason; any other exception stays a crash."""

    def verdict(s):
        if np.any(np.asarray(s["U"]) > 0.3):
            raise BeyondReach("a flow leaves the tables at t = 4.78")
        return [("montecarlo", True)]

    _stand_in(monkeypatch, verdict)
    assert cli.main(["hunt", "lemma-2.1", "--examples", "30", "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "lemma-2.1.json").read_text())
    assert out["outside_hypotheses"].get("a flow leaves the tables at t = #", 0) > 0
    assert out["runs"] == sum(out["regions"].values())

    def crash(s):
        raise ValueError("a bug")

    _stand_in(monkeypatch, crash)
    assert (
        cli.main(
            ["hunt", "lemma-2.1", "--examples", "30", "--max-shrink", "0", "--out", str(tmp_path)]
        )
        == 1
    )
    (failing,) = json.loads((tmp_path / "lemma-2.1-counterexample.json").read_text())
    assert failing["id"] == "lemma-2.1/crash" and failing["kind"] == "crash"
    assert "failing: lemma-2.1/crash" in capsys.readouterr().out


def test_undecided_checks_and_control_misses_are_not_counterexamples(monkeypatch, tmp_path):
    _stand_in(monkeypatch, lambda s: [("montecarlo", None), ("control", False)])
    assert cli.main(["hunt", "lemma-2.1", "--examples", "5", "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "lemma-2.1.json").read_text())
    assert out["undecided_runs"] == out["runs"] == len(out["control_misses"]) > 0
    assert {m["id"] for m in out["control_misses"]} == {"lemma-2.1/check-1"}  # by id, not prose


def test_a_control_not_judged_is_neither_undecided_nor_a_miss():
    from softlin.judge.check import check_record, unjudged
    from softlin.hunt.search import judge

    checks = [
        Check("m", "montecarlo", True),
        unjudged("control: c", "control", "planned power 0 below 0.999", tier="statistical"),
    ]
    verdict = judge(
        {
            "checks": [check_record(c, "x") for c in checks],
            "false_alarm": {"bound": 0.0, "nominal": 1e-6},
        }
    )
    assert (verdict["undecided"], verdict["control_misses"], verdict["failing"]) == (0, [], [])
    undecided = judge(
        {
            "checks": [check_record(Check("m", "montecarlo", None), "x")],
            "false_alarm": {"bound": 0.0, "nominal": 1e-6},
        }
    )
    assert undecided["undecided"] == 1


def test_a_run_above_the_stated_false_alarm_is_an_internal_error(monkeypatch, tmp_path, capsys):
    _stand_in(monkeypatch, lambda s: [("montecarlo", True)] * 4)  # 4e-6 > the stated 3e-6
    assert cli.main(["hunt", "lemma-2.1", "--examples", "3", "--out", str(tmp_path)]) == 3
    assert "above the hunt's stated" in capsys.readouterr().err


def _without_timing(out: dict) -> dict:
    """The summary without what depends on the machine: seconds, the cluster, the output folder."""
    if "counterexample" in out:
        out = {
            **out,
            "counterexample": {k: v for k, v in out["counterexample"].items() if k != "toml"},
        }
    return {k: v for k, v in out.items() if k not in ("seconds", "dask")}


@pytest.mark.slow  # default-run budget (180 s): the Dask tests live in the slow tier
@pytest.mark.parametrize("fails", [False, True], ids=["nothing found", "counterexample shrunk"])
def test_a_hunt_on_a_dask_scheduler_gives_the_in_process_result(monkeypatch, tmp_path, fails):
    """hunt/cluster.py: draw, prefetch on the cluster, replay. The summary (regions, runs, the
    shrunk counterexample) equals the in-process hunt's. A thread-based LocalCluster, so the
    stand-in claim (monkeypatched here) is what its workers run; tests/test_hunt.py's slow tier uses
    processes."""
    distributed = pytest.importorskip("distributed")
    _stand_in(
        monkeypatch, lambda s: [("montecarlo", not (fails and np.any(np.asarray(s["U"]) > 0.3)))]
    )
    argv = ["hunt", "lemma-2.1", "--examples", "15", "--max-shrink", "40"]
    code = cli.main([*argv, "--out", str(tmp_path / "here")])
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        remote = cli.main(
            [*argv, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "there")]
        )
    here = json.loads((tmp_path / "here" / "lemma-2.1.json").read_text())
    there = json.loads((tmp_path / "there" / "lemma-2.1.json").read_text())
    assert remote == code == (1 if fails else 0)
    assert _without_timing(there) == _without_timing(here)
    assert there["dask"]["workers"] == 2 and there["dask"]["prefetched_runs"] >= there["runs"] > 0
    assert (
        there["dask"]["runs_on_demand"] > 0
    ) == fails  # shrink candidates go to the cluster one by one


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_a_hunt_on_a_local_cluster_of_processes_gives_the_in_process_result(tmp_path):
    """The real lemma-2.1 on `--workers 2` (worker processes import softlin themselves): same
    summary."""
    pytest.importorskip("distributed")
    argv = ["hunt", "lemma-2.1", "--examples", "4", "--max-shrink", "2"]
    code = cli.main([*argv, "--out", str(tmp_path / "here")])
    remote = cli.main([*argv, "--workers", "2", "--out", str(tmp_path / "there")])
    here = json.loads((tmp_path / "here" / "lemma-2.1.json").read_text())
    there = json.loads((tmp_path / "there" / "lemma-2.1.json").read_text())
    assert remote == code == 0 and _without_timing(there) == _without_timing(here)
    assert there["dask"]["workers"] == 2 and there["dask"]["runs_on_demand"] == 0


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["hunt", "lemma-9.9"], "unknown claim id"),
        (["hunt", "lemma-2.1", "--examples", "0"], "--examples 0"),
        (["hunt", "lemma-2.1", "--seed", "-2"], "--seed -2"),
        (["hunt", "lemma-2.1", "--false-alarm", "0"], "--false-alarm 0"),
        (["hunt", "lemma-2.1", "--budget", "full"], "invalid choice"),
        (["hunt", "lemma-2.1", "--workers", "0"], "--workers 0"),
        (["hunt", "lemma-2.1", "--workers", "2", "--scheduler", "tcp://x:1"], "not allowed with"),
    ],
)
def test_bad_hunt_input_exits_2_with_one_line(argv, fragment, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


DEGENERATE = {
    "d": 2,
    "mean": [1.0, 1.0],
    "cov": [[0.0, 0.0], [0.0, 0.0]],
    "U": [[-0.375, -0.125], [-0.125, -0.375]],
    "V": [[0.75, 0.75], [0.75, 0.75]],
    "query_cov": [[1.0, -1.0], [-1.0, 2.0]],
    "L": [4],
    "trials": 800,
    "delta": 0.001,
    "seed": 0,
}


def test_a_point_mass_gaussian_is_verified_by_lemma_2_1():
    """V Gamma V^T = 0: the numerator statistic is rounding noise and its studentised mean can be
    infinite on a correct limit; numerics/montecarlo.studentised_numerator judges such a coordinate
    exactly."""
    merged = scen.merge(lemma21.default_scenario(), DEGENERATE, lemma21.SCENARIO_KEYS)
    cert = lemma21.CLAIM.run(merged, "quick", claim_rng(0, "lemma-2.1"))
    assert cert["status"] != "refuted"


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_hunt_finds_and_shrinks_a_transposed_interaction_matrix_in_lemma_2_1(monkeypatch, tmp_path):
    from softlin.numerics import limits

    right = limits.gaussian_limit
    monkeypatch.setattr(limits, "gaussian_limit", lambda m, cov, U, V, Z: right(m, cov, U.T, V, Z))
    assert (
        cli.main(
            ["hunt", "lemma-2.1", "--examples", "50", "--max-shrink", "30", "--out", str(tmp_path)]
        )
        == 1
    )
    out = json.loads((tmp_path / "lemma-2.1.json").read_text())
    stated = out["false_alarm"]["stated"]
    assert out["runs"] <= 50 and stated == pytest.approx(50 * 3e-6) and stated <= 1e-3
    user = scen.load_toml(tmp_path / "lemma-2.1-counterexample.toml")
    U = np.asarray(user["U"])
    assert not np.array_equal(U, U.T)  # U^T = U would make the slip invisible
    ids = [c["id"] for c in out["counterexample"]["failing_checks"]]
    assert (
        "lemma-2.1/battery/kernel-float64" in ids
    )  # the deterministic route caught it, not chance
    merged = scen.merge(lemma21.default_scenario(), user, lemma21.SCENARIO_KEYS)
    assert lemma21.CLAIM.run(merged, "quick", claim_rng(0, "lemma-2.1"))["status"] == "refuted"


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_hunt_finds_a_forgotten_tilted_mean_shift_in_asm_3_3(monkeypatch, tmp_path):
    import functools
    from softlin.derivations import tilted_moments as tm

    monkeypatch.setattr(tm, "tilted_moment", functools.partial(tm.tilted_moment, shift=0))
    assert (
        cli.main(
            ["hunt", "asm-3.3", "--examples", "50", "--max-shrink", "3", "--out", str(tmp_path)]
        )
        == 1
    )
    out = json.loads((tmp_path / "asm-3.3.json").read_text())
    assert out["runs"] <= 50 and out["counterexample"]["failing_checks"]


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_hunt_finds_nothing_in_asm_3_3_on_the_committed_code(tmp_path):
    # The hunt's path end to end on the real claim (4 draws, ~45 s): tests/claims/test_reach.py
    # judges more of asm-3.3's hunt space, in the same share of the rotation.
    assert cli.main(["hunt", "asm-3.3", "--examples", "4", "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "asm-3.3.json").read_text())
    assert (
        out["result"] == "nothing found"
        and out["runs"] + sum(out["outside_hypotheses"].values()) == 4
    )


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_hunt_finds_a_deviation_bound_fifty_times_too_small_in_lemma_2_1(monkeypatch, tmp_path):
    # The bound (Chebyshev on the numerator, Maurer on the denominator) is loose: only a much
    # smaller constant bites at the quick budget.
    from softlin.claims.shared import limit_battery as battery

    right = battery.deviation_bound
    monkeypatch.setattr(
        battery, "deviation_bound", lambda L, delta, w, n: 0.02 * right(L, delta, w, n)
    )
    assert (
        cli.main(
            ["hunt", "lemma-2.1", "--examples", "50", "--max-shrink", "10", "--out", str(tmp_path)]
        )
        == 1
    )
    failing = json.loads((tmp_path / "lemma-2.1-counterexample.json").read_text())
    assert "lemma-2.1/battery/high-probability-bound" in [c["id"] for c in failing]


HEAVY_TAILED = {
    "d": 4,
    "mean": [0.25, -1.0, 1.0, -1.0],
    "cov": [
        [0.5625, -0.5625, 0.375, 0.375],
        [-0.5625, 0.5625, -0.375, -0.375],
        [0.375, -0.375, 0.25, 0.25],
        [0.375, -0.375, 0.25, 0.25],
    ],
    "U": [
        [0.375, -0.375, 0.5, 0.375],
        [0.375, 0.375, 0.0, -0.125],
        [0.0, -0.375, -0.375, -0.375],
        [0.0, -0.5, 0.0, 0.0],
    ],
    "V": [[0.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0]],
    "query_cov": [
        [1.5625, -1.75, 0.625, 0.75],
        [-1.75, 2.0625, -0.5, -0.75],
        [0.625, -0.5, 1.25, 0.75],
        [0.75, -0.75, 0.75, 0.625],
    ],
    "L": [4, 8, 16],
    "trials": 800,
    "delta": 0.001,
    "seed": 0,
}


def test_the_numerator_test_holds_its_level_where_heavy_tailed_weights_break_the_z_test():
    """The studentised numerator mean gives |z| = 5.39 against the critical 5.36 on a correct
    formula here (normal approximation of heavy-tailed weights at 200 prompts).
    Replayed with the certificate's own random stream: the studentised z is still beyond its
    critical value (the scenario is the one that broke the z-test), and Catoni's test, whose level
    needs no normality, accepts."""
    from softlin.claims.shared import limit_battery as battery
    from softlin.claims.shared.common import budget_for, limit_setting, queries_for
    from softlin.numerics.laws import GaussianLaw
    from softlin.numerics.significance import z_critical

    s = scen.common(scen.merge(lemma21.default_scenario(), HEAVY_TAILED, lemma21.SCENARIO_KEYS))
    rng = claim_rng(0, "lemma-2.1")
    budget = budget_for(s, "quick")
    queries = queries_for(limit_setting(s), budget, rng)
    subject = gaussian_subject(
        "s", GaussianLaw(s["mean"], s["cov"]), s["mean"], s["cov"], s["U"], s["V"]
    )
    found = battery.montecarlo_checks(subject, queries, s["U"], s["V"], budget, rng)
    checks = found.checks
    z = np.abs(np.array(found.series["numerator_z"]))
    assert z.max() > z_critical(1e-6, z.size)
    numerator = next(c for c in checks if c.id == battery.NUMERATOR_ID)
    assert numerator.passed is True and numerator.value <= 1.0


@pytest.mark.slow  # default-run budget (180 s): ~11 s (a full finite-prompt-risk run)
def test_a_prediction_that_cancels_is_outside_finite_prompt_risk_not_a_crash():
    """mu = 0 in every head makes the prediction 0, R_L = R_inf exactly, and the rate fit has only
    zero standard errors. So do two heads with equal omega and opposite mu. Validation rejects both
    with the reason (outside, exit 2); mu != 0 runs."""
    claim = registry.get("finite-prompt-risk")
    for mu, omega in (([0.0], [0.0]), ([0.5, -0.5], [0.25, 0.25])):
        user = {"scalar": {"d": 1, "noise": 0.0, "mu": mu, "omega": omega, "L": [4, 8]}, "seed": 0}
        merged, reason = classify(claim, user, "quick")
        assert merged is None and "predictions cancel" in reason
    user = {
        "scalar": {"d": 1, "noise": 0.0, "mu": [0.5, -0.5], "omega": [0.25, -0.25], "L": [4, 8]},
        "seed": 0,
    }
    assert classify(claim, user, "quick")[0] is not None
    user["scalar"].update(mu=[0.125], omega=[0.0])
    merged, _ = classify(claim, user, "quick")
    cert = claim.run(merged, "quick", claim_rng(0, claim.id))
    assert cert["status"] in ("verified", "inconclusive")


def _hunt_under_mutant(mutant: str, argv: list, tmp_path):
    """`softlin hunt` in a fresh process with one catalogued slip installed
    (tests/mutants/hook.py)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys; from tests.mutants import catalogue, hook; "
        "hook.install(catalogue.by_name(sys.argv[1])); "
        "from softlin import cli; sys.exit(cli.main(sys.argv[2:]))"
    )
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code, mutant, *argv, "--out", str(tmp_path)],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, json.loads((tmp_path / f"{argv[1]}.json").read_text())


# Power of the hunt against slips of prop-3.1 (tests/mutants/catalogue.py), each in a fresh process.
# Each must be found within N = 50 examples and shrunk. Measured (load ~2 on 2 cores,
# --max-shrink 1): each refuted at the first judged run (after two draws with V Gamma V^T = 0,
# outside the hypotheses), the naive exponent by the regime check "above threshold: exact L2(nu)
# error decays as L^-kappa" (21 s), the first-order term by the symbolic proofs and the Monte Carlo
# L2(nu) error (24 s), the bound constant by the symbolic proofs (23 s); 95 s for the three.
POWER = [
    ("prop31-sharp-exponent-naive", "the naive exponent min(1, 1/(2 lambda)) in place of kappa"),
    ("first-order-trace-shift-term-dropped", "a missing term of the first-order covariance"),
    (
        "expectation-bound-factor-not-squared",
        "a bound constant too small (2 e^q / L for 4 e^q / L)",
    ),
]


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
@pytest.mark.parametrize("mutant, slip", POWER, ids=[m for m, _ in POWER])
def test_hunt_finds_and_shrinks_a_slip_of_prop_3_1(mutant, slip, tmp_path):
    # one shrink run: a prop-3.1 run costs ~15 s of CPU, and the slow tier's budget is 2 minutes
    code, out = _hunt_under_mutant(
        mutant, ["hunt", "prop-3.1", "--examples", "50", "--max-shrink", "1"], tmp_path
    )
    assert code == 1 and out["result"] == "counterexample" and out["runs"] <= 50, slip
    assert out["shrink_runs"] == 1 and (tmp_path / "prop-3.1-counterexample.toml").exists()
    failing = out["counterexample"]["failing_checks"]
    assert failing and all(c["kind"] != "crash" for c in failing), failing  # a verdict, not a crash
    assert out["false_alarm"]["stated"] <= 1e-3


def test_a_real_claims_statistical_checks_read_the_lowered_level():
    """Inside base.false_alarm_level(1e-9) the battery's critical values are those of 1e-9 (the mean
    squared error's decrease test: its one-sided critical value grows), every statistical
    check states 1e-9, and a level looser than the certificates' 1e-6 is refused."""
    from softlin.claims.shared import limit_battery as battery
    from softlin.judge.check import false_alarm_level
    from softlin.claims.shared.common import budget_for, limit_setting, queries_for
    from softlin.numerics.laws import GaussianLaw
    from softlin.numerics.significance import z_critical

    s = scen.common(scen.merge(lemma21.default_scenario(), HEAVY_TAILED, lemma21.SCENARIO_KEYS))
    subject = gaussian_subject(
        "s", GaussianLaw(s["mean"], s["cov"]), s["mean"], s["cov"], s["U"], s["V"]
    )
    bounds = {}
    for level in (1e-6, 1e-9):
        rng = claim_rng(0, "lemma-2.1")
        budget = budget_for(s, "quick")
        queries = queries_for(limit_setting(s), budget, rng)
        with false_alarm_level(level):
            checks = battery.montecarlo_checks(subject, queries, s["U"], s["V"], budget, rng).checks
            stated = {
                c.false_alarm.alpha
                for c in checks
                if c.tier == "statistical" and c.kind != "control"
            }
            assert stated == {level}
        bounds[level] = next(c.bound for c in checks if c.id == "battery/mse-decreases")
        assert bounds[level] == pytest.approx(z_critical(level, len(budget.Ls) - 1, sided=1))
    assert bounds[1e-9] > bounds[1e-6]
    with pytest.raises(ValueError, match="per-check false alarm"):
        with false_alarm_level(1e-5):
            pass


def test_a_point_mass_query_law_has_lambda_0_and_a_gauss_hermite_average():
    """Sigma_q = 0: the whitened spectrum is empty (lambda = 0) and the Gauss-Hermite average has
    no direction to integrate, given fn or its logarithm log_fn; the average over the point mass
    at 0 is the integrand at 0."""
    from softlin.numerics import query_average

    Gamma, U, zero = np.eye(2), np.array([[0.5, 0.0], [0.25, 0.5]]), np.zeros((2, 2))
    assert query_average.threshold_lambda(Gamma, U, zero) == 0.0
    log_fn = lambda Z: 0.7 + Z[:, 0]  # noqa: E731
    assert query_average.gauss_hermite_average(
        None, zero, tilt=U.T @ Gamma @ U, log_fn=log_fn
    ) == pytest.approx(np.exp(0.7))
    assert query_average.gauss_hermite_average(lambda Z: 2.0 + Z[:, 1], zero) == 2.0


@pytest.mark.parametrize("claim_id", supported())
def test_a_spaces_check_bound_holds_the_committed_certificates_false_alarm(claim_id):
    """A hunt stops (exit 3) on a run whose family-wise false alarm exceeds its space's
    `statistical_checks` per-check levels: the built-in scenario's certificate, made at the
    per-check level 1e-6, must stay within that bound (asm-3.3 had kept 1 after its second Monte
    Carlo decision joined, and its hunt stopped on every run)."""
    from softlin.judge.check import CHECK_FALSE_ALARM

    cert = json.loads((REPO / "reports" / "certificates" / f"{claim_id}.json").read_text())
    in_levels = sum(cert["false_alarm"].values()) / CHECK_FALSE_ALARM
    assert 0 < in_levels <= registry.get(claim_id).hunt.statistical_checks * (1 + 1e-9)
