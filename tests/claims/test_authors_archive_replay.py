"""An archived SGD run stands for today's code only if today's code, re-run at the archive's seed
to its first recorded point, reproduces it (issue 40 item 6; claims/authors_experiment/flow.py).

Reached on the committed 30 000-step archive at L = 10 (its first recorded point is step 300:
0.2 s): it reproduces; the same archive with that point moved by 1e-6, or naming another sampler,
does not, and the reason says so."""

import copy

import pytest

from softlin.claims.authors_experiment import flow

STEM = "authors_long_sgd_30k"


@pytest.fixture(scope="module")
def archive():
    return flow.load_long_sgd()[STEM]


def at_l10(archive):
    return {10: archive["runs"]["10"]}


def test_todays_code_reproduces_the_archives_first_recorded_point(archive):
    replay = flow.replay_first_points(archive, at_l10(archive))
    assert replay[10]["step"] == 300
    assert replay[10]["largest_difference"] <= flow.REPLAY_TOLERANCE
    assert flow.replay_reason(replay) == ""


def test_an_archive_whose_first_point_moved_is_not_today_codes_run(archive):
    moved = copy.deepcopy(archive)
    point = moved["runs"]["10"]["trajectory"]["softmax"][1]
    point[0] += 1e-6
    reason = flow.replay_reason(flow.replay_first_points(moved, at_l10(moved)))
    assert "does not reproduce the archive at L = 10" in reason and "step 300" in reason


def test_an_archive_of_another_sampler_is_not_re_run(archive):
    other = copy.deepcopy(archive)
    other["setting"]["sampler"] = "numerics/authors_sgd.train"
    assert "not re-runnable" in flow.replay_reason(flow.replay_first_points(other, at_l10(other)))
