"""Hypothesis profiles (docs/design.md): `dev` (default, fast), `ci` (more examples, derandomised so CI
cannot flake), `repro` (derandomised, few examples, for bisecting). Select with
SOFTLIN_HYPOTHESIS_PROFILE."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=8, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("repro", max_examples=5, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("SOFTLIN_HYPOTHESIS_PROFILE", "dev"))
