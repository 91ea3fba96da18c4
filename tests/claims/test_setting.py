"""The Setting (core/setting.py): mu, U, V, nu of a run, frozen and validated, built once by the
core's execute path and handed to the claims that declare it (every registered claim)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from softlin.core import execute, registry, scenario as scen
from softlin.core.setting import Setting, setting_of
from softlin.numerics.laws import GaussianLaw

ADOPTED = registry.ORDER


def gaussian(d: int) -> GaussianLaw:
    return GaussianLaw(np.zeros(d), np.eye(d))


def test_a_setting_is_frozen_and_its_arrays_read_only():
    U = np.eye(2)
    s = Setting({"seed": 0, "cov": np.eye(2)}, gaussian(2), U, np.ones((1, 2)), gaussian(2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.U = np.zeros((2, 2))
    with pytest.raises(ValueError):
        s.U[0, 0] = 5.0
    with pytest.raises(ValueError):
        s.scenario["cov"][0, 0] = 5.0
    with pytest.raises(TypeError):
        s.scenario["seed"] = 1
    U[0, 0] = 9.0  # the caller's array is copied, not shared
    assert s.U[0, 0] == 1.0


@pytest.mark.parametrize(
    "U, V, queries, query, why",
    [
        (np.eye(3), np.ones((1, 2)), None, None, "do not act"),
        (np.eye(2), np.ones((1, 3)), None, None, "do not act"),
        (np.eye(2), np.ones((1, 2)), gaussian(3), None, "queries in R.3"),
        (np.eye(2), np.ones((1, 2)), None, np.ones(3), "the query has shape"),
        (np.ones(2), np.ones(3), None, None, "heads"),
        (np.eye(2), np.ones(2), None, None, "do not fit"),
        (np.eye(3), np.ones(1), None, None, "do not fit"),
    ],
)
def test_a_setting_refuses_shapes_that_do_not_fit(U, V, queries, query, why):
    with pytest.raises(ValueError, match=why):
        Setting({}, gaussian(2), U, V, queries, query)


def test_the_scalar_model_holds_one_omega_and_one_mu_per_head():
    s = Setting({}, gaussian(5), np.array([0.25, 0.1]), np.array([-1.0, 0.5]), gaussian(5))
    assert s.d == 5 and s.U.shape == s.V.shape == (2,)


def test_the_in_context_regression_holds_a_0_and_the_number_b_0():
    s = Setting({}, gaussian(2), 0.5 * np.eye(2), np.array([0.5]), gaussian(2))
    assert s.d == 2 and s.U.shape == (2, 2) and s.V.shape == (1,)


@pytest.mark.parametrize("cid", ADOPTED)
def test_each_adopting_claim_builds_its_setting_from_its_default_scenario(cid):
    claim = registry.get(cid)
    assert claim.setting is not None
    setting = setting_of(claim, claim.default_scenario())
    assert isinstance(setting, Setting) and setting.tokens.d == setting.d
    assert setting_of(claim, setting) is setting  # a Setting passes through unchanged


def test_the_execute_path_builds_the_setting_once_and_hands_it_to_run(monkeypatch):
    claim = registry.get("lemma-2.1")
    built, received = [], []

    def counting(s):
        built.append(s)
        return claim.setting(s)

    spy = dataclasses.replace(
        claim, setting=counting, run=lambda setting, profile, rng: received.append(setting)
    )
    merged = scen.merge(
        claim.default_scenario(),
        {"U": [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.3]]},
        claim.scenario_keys,
    )
    execute.run(spy, merged, "quick")
    assert len(built) == 1 and len(received) == 1 and isinstance(received[0], Setting)
    assert np.array_equal(received[0].U, np.diag([0.1, 0.2, 0.3]))
    assert np.array_equal(received[0].tokens.mean, np.asarray(merged["mean"]))


def test_a_claim_without_a_setting_still_receives_the_merged_scenario():
    claim = registry.get("thm-5.2")
    received = []
    spy = dataclasses.replace(claim, setting=None, run=lambda s, profile, rng: received.append(s))
    merged = claim.default_scenario()
    execute.run(spy, merged, "quick")
    assert received == [merged]
