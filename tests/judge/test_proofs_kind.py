"""judge.proofs counts what a claim states: a solver's result put back into its own equation
(derivations/proof.back_substitute) is shown, not counted; one that fails still fails the check."""

from softlin.derivations.proof import Proof
from softlin.judge import kinds as judge


def proof(passed=True, back=False):
    return Proof("s", passed, 0.0, None, back_substitution=back)


def test_back_substitutions_are_not_counted():
    check = judge.proofs("x", {"a": proof(), "b": proof(), "root solves": proof(back=True)})
    assert (check.value, check.bound, check.passed) == (2, 2, True)
    assert "1 back-substitutions shown, not counted" in check.detail


def test_a_failed_back_substitution_fails_the_check():
    check = judge.proofs("x", {"a": proof(), "root solves": proof(passed=False, back=True)})
    assert check.passed is False and "root solves" in check.detail


def test_a_failed_stated_identity_fails_the_check():
    check = judge.proofs("x", {"a": proof(passed=False), "b": proof()})
    assert (check.value, check.bound, check.passed) == (1, 2, False)
