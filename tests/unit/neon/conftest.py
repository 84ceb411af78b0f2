"""NEON's long runs (``@pytest.mark.slow``) run only when asked: ``-m slow`` or NEON_SLOW=1."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("-m") or "") or os.environ.get("NEON_SLOW"):
        return
    skip = pytest.mark.skip(reason="long run: use -m slow or NEON_SLOW=1")
    for item in items:
        if "tests/unit/neon/" in str(item.path).replace(os.sep, "/") and "slow" in item.keywords:
            item.add_marker(skip)
