"""Tests name a certificate's checks by their stable ids (judge.check.Check.id), never by prose."""

from __future__ import annotations


def check(cert: dict, local_id: str) -> dict:
    """The check `<claim>/<local_id>` of a certificate dict (exactly one)."""
    full = f"{cert['claim']}/{local_id}"
    found = [c for c in cert["checks"] if c["id"] == full]
    assert len(found) == 1, (
        f"{full}: {len(found)} checks (ids: {[c['id'] for c in cert['checks']]})"
    )
    return found[0]


def checks(cert: dict, prefix: str) -> list[dict]:
    """The checks whose id, after the claim id, starts with `prefix` ("control/", "linear/")."""
    return [c for c in cert["checks"] if c["id"].startswith(f"{cert['claim']}/{prefix}")]
