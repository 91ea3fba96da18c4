"""The default run's two workers share a group's fixtures only if `--dist loadgroup` sees the
`xdist_group` marks: pytest-xdist renames each marked test `<id>@<group>` and schedules by that
suffix. pytest 9.2 keeps a node's id where xdist 3.8 cannot rename it, and every group was silently
spread over both workers; this test turns such a combination red instead."""

import os

import pytest


@pytest.mark.xdist_group("loadgroup-probe")
def test_a_grouped_test_carries_its_group_in_its_id(request):
    if "PYTEST_XDIST_WORKER" not in os.environ or not getattr(
        request.config.option, "loadgroup", False
    ):
        pytest.skip("not distributed by loadgroup (pytest -n 0, or another --dist)")
    assert request.node.nodeid.endswith("@loadgroup-probe"), request.node.nodeid
