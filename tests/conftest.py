"""Shared fixtures. Tests build isolated registries; the default one is left alone."""

from __future__ import annotations

import pytest

from tooldeck import ToolRegistry


@pytest.fixture
def registry() -> ToolRegistry:
    """A fresh, isolated registry."""
    return ToolRegistry()
