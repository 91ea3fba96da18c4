"""The certified c1 re-checked by Coq (derivations/coq_export.py, benchmarks/c1_to_coq.py): the
printed g is the derived g (evaluated here by Python from the Coq text, against the emitted
kernels), the committed certificates' c1 files check in coqc, and a c1 lowered below the Arb
enclosure's lower end does not. Coq runs in the slow tier; CI installs coq and libcoq-interval and
sets SOFTLIN_REQUIRE_COQ=1, which turns "no coqc" from a skip into a failure."""

import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from softlin.derivations import coq_export
from softlin.numerics import kernels

REPO = Path(__file__).resolve().parents[2]
CERTIFICATES = REPO / "reports" / "certificates"


def _script():
    spec = importlib.util.spec_from_file_location("c1_to_coq", REPO / "benchmarks" / "c1_to_coq.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _python_value(term: str, **values) -> float:
    """A Coq R term of coq_real's grammar evaluated by Python (a reader's translation)."""
    text = term.replace("^", "**").replace("(/ ", "(1 / ")
    text = re.sub(r"\bexp\b", "math.exp", re.sub(r"\bln\b", "math.log", text))
    return eval(text, {"math": math}, values)  # noqa: S307 - our own printer's output


@given(
    st.integers(2, 400),
    st.floats(0.01, 3.0),
    st.floats(0.1, 10.0),
    st.floats(1.0, 3.0),
)
def test_the_printed_g_is_the_emitted_bound_over_the_paper_form(L, q, tp, sigma):
    term = coq_export.coq_real(coq_export.g_expression())
    got = _python_value(term, L=L, q=q, tp=tp, sigma=sigma)
    factor = kernels.expectation_bound_good_event(L, q) + kernels.expectation_bound_bad_event(L, q)
    expected = L * tp * factor / (sigma**6 * math.log(L))
    assert got == pytest.approx(expected, rel=1e-12)


def test_the_printer_refuses_what_coq_reals_cannot_say_plainly():
    import sympy as sp

    with pytest.raises(ValueError, match="non-integer power"):
        coq_export.coq_real(sp.sqrt(sp.Symbol("x")))
    with pytest.raises(ValueError, match="no Coq form"):
        coq_export.coq_real(sp.sin(sp.Symbol("x")))


def test_the_invariants_are_the_exact_rationals_of_the_arb_route():
    from softlin.numerics import every_l

    rng = np.random.default_rng(5)
    Gamma = np.array([[1.3, 0.4], [0.4, 0.7]])
    U, V, z = rng.normal(size=(2, 2)), rng.normal(size=(3, 2)), rng.normal(size=2)
    q, tp = coq_export.exact_invariants(Gamma, U, V, z, multiplier=2)
    Q = every_l.query_invariants(Gamma, U, V, z, 2)
    for exact, ball in ((q, Q.q), (tp, Q.tp)):
        assert float(ball.lower()) <= float(exact) <= float(ball.upper())
    # and exactly the rationals of plain loops over the floats
    F = lambda M: [[Fraction(float(x)) for x in row] for row in np.atleast_2d(M)]
    G, Uf, Vf, zf = F(Gamma), F(U), F(V), F(z)[0]
    a = [sum(Uf[i][j] * zf[j] for j in range(2)) for i in range(2)]
    Ga = [sum(G[i][j] * a[j] for j in range(2)) for i in range(2)]
    VGa = [sum(Vf[r][i] * Ga[i] for i in range(2)) for r in range(3)]
    VGV = sum(Vf[r][i] * G[i][j] * Vf[r][j] for r in range(3) for i in range(2) for j in range(2))
    assert q == sum(a[i] * Ga[i] for i in range(2))
    assert tp == 2 * (VGV + sum(v * v for v in VGa))


def _coq_ready() -> bool:
    if shutil.which("coqc") is None:
        return False
    probe = subprocess.run(
        ["coqc", "-where"], capture_output=True, text=True, check=False, timeout=60
    ).stdout.strip()
    return (Path(probe) / "user-contrib" / "Interval").is_dir()


@pytest.fixture(scope="module")
def coq():
    if not _coq_ready():
        if os.environ.get("SOFTLIN_REQUIRE_COQ") == "1":
            pytest.fail(
                "SOFTLIN_REQUIRE_COQ=1 but coqc with Interval was not found "
                "(apt-get install coq libcoq-interval)"
            )
        pytest.skip("coqc with the Interval library is not installed")
    return "coqc"


def _coqc(coq, tmp_path, source: str, name: str) -> subprocess.CompletedProcess:
    path = tmp_path / f"{name}.v"
    path.write_text(source)
    return subprocess.run(
        [coq, path.name], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=600
    )


# ~5 s of coqc per certificate and ~5 s per lowered constant
@pytest.mark.slow
@pytest.mark.parametrize("claim", ["prop-3.1", "prop-3.4"])
def test_the_certificates_c1_checks_in_coq_and_a_lowered_one_does_not(coq, tmp_path, claim):
    script = _script()
    cert = json.loads((CERTIFICATES / f"{claim}.json").read_text())
    data = script.inputs(cert)
    title = data.pop("title")
    done = _coqc(coq, tmp_path, coq_export.c1_source(**data, title=title), "certified")
    assert done.returncode == 0, done.stdout + done.stderr
    form = cert["quantities"][script.SOURCES[claim][0]]["paper_form"]
    lowered = repr(form["c1"][0] * (1 - 1e-7))  # below the enclosure's lower end
    refused = _coqc(coq, tmp_path, coq_export.c1_source(**{**data, "c1": lowered}), "lowered")
    assert refused.returncode != 0
    # the lemma that fails is the maximiser's
    failing_line = int(re.search(r"line (\d+)", refused.stdout + refused.stderr).group(1))
    lines = coq_export.c1_source(**{**data, "c1": lowered}).splitlines()
    assert f"g_le_c1_{form['argmax_L']} " in lines[failing_line - 2]
