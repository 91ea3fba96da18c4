"""Issue 41, item 1: a route's reach is part of its check. On an extreme but valid scenario a
route beyond its reach refines itself or leaves its check undecided or not judged, naming the
value that exceeded the reach; it never refutes a true statement, and no numpy warning reaches the
user's terminal.

The audit's cases run through the CLI with a TOML scenario (lemma-2.1's built-in scenario, d = 3,
with U = 10 I, 3 I and 1e99 I); the reach bounds of numerics/quadrature.py are tested against the
routes they bound; and a few scenarios drawn from the hunt's space at its extreme scales must never
be refuted (tests/test_hunt.py tests the hunt itself).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings

from softlin.cli import main
from softlin.claims.shared import hunt_strategies
from softlin.core import registry
from softlin.hunt import search
from softlin.numerics import quadrature
from softlin.numerics import tilted_moments as nt
from softlin.numerics.laws import GaussianLaw

REPO = Path(__file__).resolve().parents[2]


def verify(tmp_path, capsys, claim: str, toml: str):
    """(exit code, stderr, warnings caught, certificate) of `softlin verify CLAIM --profile quick
    --scenario FILE --out DIR`. pytest keeps warnings off stderr, so they are recorded here too."""
    path = tmp_path / "scenario.toml"
    path.write_text(toml)
    out = tmp_path / "out"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(
            ["verify", claim, "--profile", "quick", "--scenario", str(path), "--out", str(out)]
        )
    err = capsys.readouterr().err
    cert = json.loads((out / "certificates" / f"{claim}.json").read_text())
    return code, err, caught, cert


def by_id(cert: dict) -> dict:
    return {c["id"].split("/", 1)[1]: c for c in cert["checks"]}


def identity(scale: str, d: int) -> str:
    rows = ", ".join(
        "[" + ", ".join(scale if i == j else "0.0" for j in range(d)) + "]" for i in range(d)
    )
    return f"U = [{rows}]\n"


def assert_not_refuted_and_quiet(code, err, caught, cert):
    assert cert["status"] != "refuted", [
        (c["id"], c["value"]) for c in cert["checks"] if c["passed"] is False
    ]
    assert code in (0, 1)  # inconclusive is exit 1 too; refuted is excluded above
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [
        str(w.message) for w in caught
    ]
    assert "Warning" not in err, err


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
def test_u_10_reaches_the_kernel_check_through_the_mpmath_route(tmp_path, capsys):
    """Was refuted (exit 1): 60-node Gauss-Hermite against a tilt of ~10 standard deviations gave
    a relative difference of 0.146 against 1e-12. The queries beyond the rule's reach now come from
    the mpmath route, and the kernel check passes at its own tolerance."""
    code, err, caught, cert = verify(tmp_path, capsys, "lemma-2.1", identity("10.0", 3))
    assert_not_refuted_and_quiet(code, err, caught, cert)
    kernel = by_id(cert)["battery/kernel-float64"]
    assert kernel["passed"] is True and kernel["value"] <= 1e-12
    assert "beyond the Gauss-Hermite rule's reach taken from the mpmath route" in kernel["detail"]
    assert by_id(cert)["battery/limit-40-digits"]["passed"] is True


# default-run budget (180 s on 2 cores): a quick run at U = 1e99 I; U = 10 I stays in the default
# run
@pytest.mark.slow
def test_u_1e99_leaves_the_40_digit_check_not_judged_naming_the_digits_it_needs(tmp_path, capsys):
    """Was refuted (exit 1, limit-40-digits 2.5e58 against 1e-25) with twelve overflow warnings on
    stderr. An absolute 1e-25 on outputs of size ~1e99 needs ~230 digits, above the route's cap:
    not judged, naming the size; Catoni's test has no Var X finite in float64: undecided."""
    code, err, caught, cert = verify(tmp_path, capsys, "lemma-2.1", identity("1e99", 3))
    assert_not_refuted_and_quiet(code, err, caught, cert)
    checks = by_id(cert)
    digits = checks["battery/limit-40-digits"]
    assert digits.get("judged") is False and "digits" in digits["reason"]
    assert str(quadrature.DPS_CAP) in digits["reason"]
    assert checks["battery/kernel-float64"]["passed"] is True
    numerator = checks["battery/numerator-zero-mean"]
    assert numerator["passed"] is None and "Var X not finite" in numerator["detail"]


# default-run budget (180 s on 2 cores): a third quick run of lemma-2.1
@pytest.mark.slow
def test_u_3_stays_inconclusive_without_warnings(tmp_path, capsys):
    """Was inconclusive (its high-probability bound is vacuous at every L of the quick profile):
    still, and its kernel check is decided."""
    code, err, caught, cert = verify(tmp_path, capsys, "lemma-2.1", identity("3.0", 3))
    assert_not_refuted_and_quiet(code, err, caught, cert)
    assert by_id(cert)["battery/kernel-float64"]["passed"] is True


@pytest.mark.slow
def test_mixture_at_u_1e99_is_not_refuted_and_quiet(tmp_path, capsys):
    code, err, caught, cert = verify(tmp_path, capsys, "mixture", identity("1e99", 2))
    assert_not_refuted_and_quiet(code, err, caught, cert)
    assert by_id(cert)["battery/limit-40-digits"].get("judged") is False


def test_the_gauss_hermite_bound_holds_and_refinement_takes_over_beyond_it():
    """The derived bound 2 r P(Poisson(t^2/2) >= n - 1) ||B|| t (plus rounding) is above the rule's
    actual error at every tilt, and beyond reach the refined route equals the lemma while the bare
    rule does not (so the refinement is what makes the check reach)."""
    m, cov = np.array([0.2]), np.array([[1.0]])
    law = GaussianLaw(m, cov)
    V = np.eye(1)
    for t in (0.5, 2.0, 5.0, 8.0, 9.0, 10.0, 12.0, 20.0):
        U = np.array([[t]])
        Z = np.array([[1.0]])
        rule = quadrature.gauss_hermite_limit(law, U, V, Z, refine=False)[0, 0]
        truth = m[0] + t  # V (m + Gamma U z)
        bound = quadrature.gauss_hermite_bound(m, cov, law.root, Z @ U.T)[0][0]
        assert abs(rule - truth) <= bound + 1e-15 * (1 + t), (t, rule - truth, bound)
    U = np.array([[30.0]])
    assert abs(quadrature.gauss_hermite_limit(law, U, V, Z, refine=False)[0, 0] - 30.2) > 1e-3
    assert quadrature.refined_rows(law, U, V, Z)[0]
    assert math.isclose(quadrature.gauss_hermite_limit(law, U, V, Z)[0, 0], 30.2, rel_tol=1e-14)


def test_the_mpmath_route_raises_its_digits_with_the_size_and_stops_at_its_cap():
    assert quadrature.mp_digits(1.0) == quadrature.DEFAULT_DPS
    assert quadrature.mp_digits(1e10) == quadrature.DEFAULT_DPS
    assert quadrature.mp_digits(1e20) == quadrature.TARGET_DIGITS + 20
    with pytest.raises(quadrature.OutOfReach, match="digits"):
        quadrature.mp_digits(mp.mpf(10) ** 60)
    # at 1e12 the route still meets the absolute 1e-25: r(t) = t exactly (the lemma)
    m, cov, V = np.zeros(1), np.eye(1), np.eye(1)
    value = quadrature.gaussian_limit_mp(m, cov, np.array([[1e12]]), V, np.array([1.0]))[0]
    assert abs(value - mp.mpf(10) ** 12) < mp.mpf("1e-25")


def test_an_ill_conditioned_covariance_is_refined_not_refuted():
    """psd_root drops an eigenvalue 1e-13 of the largest; the rule never sees its tilt shift
    lambda a, which at a = 1e6 is 1e-7, far above 1e-12 of the output: the row is refined."""
    cov = np.diag([1.0, 1e-13])
    law = GaussianLaw(np.zeros(2), cov)
    U, V, Z = np.diag([0.0, 1e6]), np.eye(2), np.array([[0.0, 1.0]])
    truth = cov @ U @ Z[0]
    assert abs(quadrature.gauss_hermite_limit(law, U, V, Z, refine=False)[0, 1] - truth[1]) > 1e-8
    assert quadrature.refined_rows(law, U, V, Z)[0]
    assert np.allclose(quadrature.gauss_hermite_limit(law, U, V, Z)[0], truth, rtol=1e-14)


def extreme_and_tilted(user: dict) -> bool:
    """U at its extreme scale (Hypothesis draws the all-zero scenario first) and a token
    covariance that feels it."""
    covs = [user["cov"]] + list(user.get("mixture", {}).get("covs", []))
    return np.max(np.abs(user["U"])) >= 2.0**30 and any(np.any(np.asarray(c)) for c in covs)


@pytest.mark.parametrize(
    "claim_id",
    # lemma-2.1's two runs took 132 s on the loaded 2 cores (its controls' budgets grow): slow tier
    [pytest.param(c, marks=pytest.mark.slow) for c in ("lemma-2.1", "mixture")],
)
def test_no_scenario_drawn_from_the_hunts_extreme_scales_refutes_the_claim(claim_id):
    """A few scenarios from the claim's hunt space with U's scale forced to its extreme exponents
    (2^40, 2^330 ~ 2e99): validated ones are run at quick and must not be refuted (a check that
    is not a control with passed = False), nor warn."""
    strategy = getattr(hunt_strategies, registry.get(claim_id).hunt.strategy.split(":")[1])
    claim = registry.get(claim_id)
    judged = []

    @settings(
        max_examples=2,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy("quick", (40, 330)).filter(extreme_and_tilted))
    def run(user):
        merged, region = search.classify(claim, user, "quick")
        if merged is None:
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            verdict = search.judge_scenario(claim_id, merged, "quick", 0, 1e-6)
        assert not verdict.get("failing"), (user, verdict["failing"])
        judged.append("outside" not in verdict)
        assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [
            str(w.message) for w in caught
        ]

    run()
    assert any(judged)  # the extreme scenarios were run, not all rejected


def test_the_d1_quadratures_rounding_bound_holds_and_is_infinite_beyond_reach():
    """asm-3.3's d = 1 route (numerics/tilted_moments.quadrature_1d_reach). Where a closed form is
    elementary its error is within the stated bound (and the bound is small); at Gamma = 0,
    U = -1.09e99 (a hunt draw that refuted asm-3.3, 8.99 against 1e-9) the cancellation of
    terms ~1e86 drops the factor |m|^4: the value is wrong, and the bound says the route cannot
    reach it (inf), so the check leaves the entry out instead of refuting."""
    # M_00^(2) = E exp(a^T Gamma a) = 1 / sqrt(1 - 2 u^2 gamma sigma_q); M_40^(1) at Gamma = 0: m^4
    value, bound = nt.quadrature_1d_reach(0, 0, 2, 0.5, 0.25, 0.9, 0.5)
    assert bound < 1e-11
    assert abs(value * math.sqrt(1 - 2 * 0.81 * 0.25 * 0.5) - 1) <= bound + 1e-11
    value, bound = nt.quadrature_1d_reach(4, 0, 1, -0.75, 0.0, 0.5, 1.0)
    assert bound < 1e-12 and abs(value / 0.75**4 - 1) <= bound + 1e-11
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning on the way
        value, bound = nt.quadrature_1d_reach(4, 0, 1, -0.75, 0.0, -1.09e99, 5.1e-13)
    assert abs(value / 0.75**4 - 1) > 1  # what the check used to compare
    assert bound == math.inf


@pytest.mark.slow  # default-run budget: one more extreme quadrature (~2 s loaded)
def test_the_d1_quadrature_at_a_tiny_gamma_and_a_huge_u_is_beyond_reach_quietly():
    """Gamma ~ 2e-13 against U ~ 8e11 (a hunt draw, refuted at 9.8e-6 against 1e-9, with scipy's
    IntegrationWarning on the terminal): a roundoff bound of ~1e-4, and scipy's own report that it
    missed its tolerance, each make the bound infinite; no warning escapes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, bound = nt.quadrature_1d_reach(
            4, 4, 1, 0.25, 2.2737367544323206e-13, 8.2463372e11, 1.3125
        )
    assert bound == math.inf


ASM_BEYOND = """d = 1
mean = [-0.75]
cov = [[0.0]]
U = [[-1.093625362391506e+99]]
V = [[-0.25], [0.5], [-0.25]]
query_cov = [[5.115907697472721e-13]]
L = [128]
"""


@pytest.mark.slow  # a quick asm-3.3 run: 43 s on the loaded 2 cores
def test_asm33_at_u_1e99_leaves_the_d1_quadrature_undecided_naming_the_reach(tmp_path, capsys):
    """A hunt draw (shrunk by hand to d = 1): was refuted, quadrature/d1-closed-forms 8.99
    against 1e-9; now every entry is beyond the route's reach and the check is undecided."""
    code, err, caught, cert = verify(tmp_path, capsys, "asm-3.3", ASM_BEYOND)
    assert_not_refuted_and_quiet(code, err, caught, cert)
    d1 = by_id(cert)["quadrature/d1-closed-forms"]
    assert d1["passed"] is None and "beyond the route's reach" in d1["reason"]


# A draw of finite-prompt-risk's hunt space (omega^2 = 0.499 just under the hypothesis' 1/2, so C1
# ~ (1 - 2 omega^2)^(-7/2) is huge and met only at L far beyond 1e7).
FPR_EDGE = """[scalar]
d = 5
noise = 0.5
mu = [8.344650268554688e-07]
omega = [-0.7064162472205451]
L = [4, 8, 128]
"""


@pytest.mark.slow  # a quick finite-prompt-risk run: ~15 s idle
def test_fpr_near_omega_squared_one_half_leaves_the_1_over_l_checks_undecided(tmp_path, capsys):
    """Was refuted: exact/expansion-c1 (the Aitken value of a still-growing F(L) against C1) and
    c1/montecarlo (|z| 2.8e10, the remainder removed with that value). Through the CLI both are
    now undecided, naming the exact route's reach; nothing fails."""
    code, err, caught, cert = verify(tmp_path, capsys, "finite-prompt-risk", FPR_EDGE)
    assert_not_refuted_and_quiet(code, err, caught, cert)
    checks = by_id(cert)
    for name in ("exact/expansion-c1", "c1/montecarlo"):
        assert checks[name]["passed"] is None, checks[name]
        assert "does not converge within L = 1e4 .. 1e7" in checks[name]["reason"]


def test_prop34_refuses_a_query_beyond_its_exact_routes_reach_in_one_line(tmp_path, capsys):
    """U ~ 1e12 made prop-3.4 crash (numpy's 'Maximum allowed size exceeded' on a q ~ 1e24
    grid); a scenario's own query with q above selfnormalised.q_reach(2) is now refused on
    validation (exit 2, one line, nothing run)."""
    path = tmp_path / "s.toml"
    path.write_text(
        "d = 2\nmean = [0.0, 0.0]\ncov = [[1.0, 0.0], [0.0, 1.0]]\n"
        "U = [[1e12, 0.0], [0.0, 1e12]]\nV = [[1.0, 0.0]]\nquery = [0.5, 0.25]\n"
    )
    code = main(["verify", "prop-3.4", "--profile", "quick", "--scenario", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "beyond the exact finite-L route's reach" in err


def test_prop34s_grad_u_enclosure_at_a_query_with_q_0_is_not_judged_not_a_crash():
    """A hunt draw: Gamma = diag(0, 1/4), U z in Gamma's kernel, so q = a^T Gamma a = 0 and the
    enclosure's scalars (divided by sqrt q) crashed the run; the check is kept, not judged."""
    from softlin.claims.prop_3_4.enclosure import grad_u_enclosure_check

    Gamma, U = np.diag([0.0, 0.25]), np.array([[0.0, 1e99], [0.0, 1.6e99]])
    f = grad_u_enclosure_check(Gamma, U, np.eye(2), np.array([0.25, 0.0]), [16], [0.0])
    (check,) = f.checks
    assert check.passed is None and check.judged is False and "q = a^T Gamma a = 0" in check.reason


# Claims of the paper whose committed certificate is verified, and the validated scenarios of its
# hunt space each is run on at quick. Measured (pytest -m slow -k ..., load average ~35 on the
# 2 shared cores, so several times the idle time): lemma-2.1 636 s, mixture 344 s, asm-3.3
# 1650 s, prop-3.1 271 s, all passing. With the extreme scales of the [icl] and [scalar] spaces
# (load ~15): thm-4.3 186 s, then 261 s, passing; thm-5.2 441 s refuted on its first draw (fixed:
# training/risk-decay states its reach), then 309 s passing; finite-prompt-risk 556 s failed on
# its first draw (fixed: beyond/heuristic-optimum-differs is undecided within the routes'
# errors), then 486 s refuted on its second (fixed: the two-head exact route's stated error), then
# 888 s passing at load 12. prop-3.4: 2574 s at load 15
# after the finite-kernels fix, failed; its 4 draws then run one by one (search.judge_scenario,
# 844 to 1094 s each at load 17): the third refuted jacobians/finite-50-digits (7.5e-24 against
# 1e-25 at |z| ~ 1e6), now held to its derived truncation; the others not refuted, no warning
# (passed as this test in CI's slow tier after that fix, 238 s). authors-experiment: two draws
# (a quick run took 120 s in CI's slow tier); its extreme draws that leave SGD's step reach end
# in BeyondReach, counted outside (tests/claims/test_authors_experiment.py runs one through the
# CLI).
# asm-3.3 at 2 draws, finite-prompt-risk at 3 (5 and 4 until 2026-12-07, when their share took
# 297 and 215 s of CI's slow tier, then past its 30 minutes; asm-3.3 at 3 then took 232 s of the
# same share's 1748 s, so 2 since; `softlin hunt` runs more, and docs/findings.md 31-37 list what
# 97 draws at seeds 101 and 202 found).
NEVER_REFUTED = {
    "lemma-2.1": 6,
    "mixture": 6,
    "asm-3.3": 2,
    "prop-3.1": 4,
    "prop-3.4": 4,
    "thm-4.3": 4,
    "thm-5.2": 3,
    "finite-prompt-risk": 3,
    "authors-experiment": 2,
}


# Open, found by this test; strict, so each mark must go when its case is fixed. (Fixed:
# finite-prompt-risk's second draw, two cancelling heads at sigma ~ 1e-6, whose exact route
# understated its error: docs/findings.md, 23; passed at its 4 draws in 888 s at load 12.)
KNOWN_REACH_FAILURES: dict[str, str] = {}


# Together they take longer than CI's budget for the slow tier: CI runs a third per commit
# (tests/rotation.py), so three consecutive commits run every claim.
@pytest.mark.slow
@pytest.mark.rotating
@pytest.mark.parametrize(
    "claim_id",
    [
        pytest.param(
            c,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_REACH_FAILURES[c])]
            if c in KNOWN_REACH_FAILURES
            else [],
        )
        for c in sorted(NEVER_REFUTED)
    ],
)
def test_no_verified_claim_is_refuted_on_a_valid_scenario_of_its_hunt_space(claim_id):
    """Issue 41 item 1: scenarios drawn from the claim's whole hunt space (extreme scales,
    ill-conditioned Gamma and Sigma_q, generic non-commuting Gamma, U, V, Sigma_q; derandomised,
    so the same draws every run), the validated ones run at profile quick with every statistical
    check at level 1e-6 (the hunt's per-check level; a false alarm over all runs here has
    probability below ~1e-4 by the union bound, nominal where a check's level is): none refuted (no
    check that is not a control with passed = False), none crashed, no RuntimeWarning. A route
    beyond its reach must be undecided, not judged, or a BeyondReach (counted outside)."""
    cert = json.loads((REPO / "reports" / "certificates" / f"{claim_id}.json").read_text())
    assert cert["status"] == "verified"
    claim = registry.get(claim_id)
    judged = []

    @settings(
        max_examples=NEVER_REFUTED[claim_id],
        derandomize=True,
        deadline=None,
        database=None,
        phases=(Phase.generate,),  # a failure is reported as drawn (shrinking costs many runs)
        suppress_health_check=list(HealthCheck),
    )
    @given(claim.hunt.scenarios("quick"))
    def run(user):
        merged, _ = search.classify(claim, user, "quick")
        assume(merged is not None)  # outside the hypotheses: not an example
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            verdict = search.judge_scenario(claim_id, merged, "quick", merged["seed"], 1e-6)
        assert not verdict.get("failing"), (user, verdict["failing"])
        assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], (
            user,
            sorted({str(w.message) for w in caught}),
        )
        judged.append("outside" not in verdict)

    run()
    # some runs judged, not all BeyondReach (thm-4.3: 1 of 4, its finite-L flows leave the exact
    # route's tables on most draws, counted outside like the hunt does)
    assert any(judged), judged


COMMON_SPACES = ("lemma-2.1", "mixture", "asm-3.3", "prop-3.1", "prop-3.4")


@pytest.mark.parametrize("claim_id", COMMON_SPACES)
def test_the_hunt_spaces_draw_every_factor_generic(claim_id):
    """Issue 40 item 1 for the hunt: of 40 derandomised draws (drawing only, no run), those with
    d >= 2 mostly have a non-identity, non-diagonal Sigma_q, and often a Gamma that does not
    commute with U and a U that does not commute with Sigma_q (Gamma = 0, drawn on purpose, and
    d = 1 commute trivially); some draws reach the extreme scales (2^20 and above, 2^-20 and
    below)."""
    claim = registry.get(claim_id)
    seen = {"sigma_q generic": 0, "gamma-u": 0, "u-sigma_q": 0, "extreme": 0, "d >= 2": 0}

    @settings(max_examples=40, derandomize=True, database=None, deadline=None)
    @given(claim.hunt.scenarios("quick"))
    def draw(user):
        S, G, U = (np.asarray(user[k], float) for k in ("query_cov", "cov", "U"))
        d = S.shape[0]
        scale = max(np.max(np.abs(U)), np.max(np.abs(G)), np.max(np.abs(S)))
        seen["extreme"] += bool(scale >= 2.0**20 or 0 < scale <= 2.0**-20)
        if d < 2:
            return
        seen["d >= 2"] += 1
        off = S - np.diag(np.diag(S))
        seen["sigma_q generic"] += bool(np.any(off) and not np.allclose(S, S[0, 0] * np.eye(d)))
        seen["gamma-u"] += bool(np.any(G @ U != U @ G))
        seen["u-sigma_q"] += bool(np.any(U @ S != S @ U))

    draw()
    assert seen["sigma_q generic"] >= seen["d >= 2"] // 2, seen
    assert min(seen["gamma-u"], seen["u-sigma_q"]) >= seen["d >= 2"] // 4, seen
    assert seen["extreme"] >= 2 and seen["d >= 2"] >= 10, seen


# Valid scenarios that a session's hunts (`softlin hunt CLAIM --seed 101 / 202`, drawn by Hypothesis
# from each claim's space) found refuted, crashing or stuck, each with the check that now says it is
# beyond its reach (or, for thm-5.2's crash, no check at all: only "not refuted, no crash").
HUNT_DRAWS = {
    "prop-3.1-q-23": (
        "prop-3.1",
        """seed = 202
d = 3
mean = [-1.0, -1.0, -0.75]
cov = [[1.5625, -0.75, 0.375], [-0.75, 1.0, 0.5], [0.375, 0.5, 0.8125]]
U = [[0.0, 524288.0, 0.0], [-1048576.0, 2097152.0, 0.0], [-2097152.0, 524288.0, 2097152.0]]
V = [[0.5, 0.75, 0.0], [-1.0, -0.25, -0.5], [-0.75, -0.25, -1.0]]
query_cov = [
    [2.8421731114447457e-13, 1.1368716298226778e-13, 1.1368651246096428e-13],
    [1.1368716298226778e-13, 5.684390675178563e-14, -5.684390675178563e-14],
    [1.1368651246096428e-13, -5.684390675178563e-14, 9.663386085247139e-13],
]
L = [8, 16]
trials = 200
delta = 0.001
query = [9.5367431640625e-07, -4.76837158203125e-07, -7.152557373046875e-07]
""",
        "fixed/first-order-montecarlo",
    ),
    "thm-5.2-contraction-not-found": (
        "thm-5.2",
        """seed = 202

[icl]
sigma = [[0.375, -0.375, 0.125], [-0.375, 2.5, -0.75], [0.125, -0.75, 0.5625]]
alpha = 9.5367431640625e-07
noise = 0.0
L = [8, 16, 32]
eps = [0.1, 0.03]
""",
        "flow/contraction-proves-convergence",
    ),
    "thm-5.2-sigma-2e6": (
        "thm-5.2",
        """seed = 202

[icl]
sigma = [[2162688.0, 0.0], [0.0, 524288.0]]
alpha = 1.75
noise = 0.0
L = [4, 8]
eps = [0.1, 0.03]
""",
        "flow/contraction-proves-convergence",
    ),
}


@pytest.mark.slow
@pytest.mark.rotating
@pytest.mark.parametrize("name", sorted(HUNT_DRAWS))
def test_hunt_draws_that_were_refuted_or_crashed_are_now_within_or_beyond_reach(
    name, tmp_path, capsys
):
    """Before: prop-3.1's first-order Monte Carlo refuted correct b1, C1 at q = 23 (z ~ 1e12; the
    exact route's tail allowance at L = 1e6 needs e^(2q) <= 1e4); thm-5.2's
    contraction search failing was reported as a refutation; at Sigma ~ 2e6 the Arb eigenvalue
    bound crashed on an overflowed midpoint. Each now runs through the CLI without refutation or
    warning, and the named check is undecided with its reason. (prop-3.4's finite risk gradient,
    refuted at tokens of scale 5e5, is tested without the CLI in tests/claims/test_prop34.py.)"""
    claim, toml, undecided = HUNT_DRAWS[name]
    code, err, caught, cert = verify(tmp_path, capsys, claim, toml)
    assert_not_refuted_and_quiet(code, err, caught, cert)
    if undecided:
        check = by_id(cert)[undecided]
        assert check["passed"] is None and check["reason"].startswith(("beyond", "not proved"))
