"""A module that fails to import: its dependency is not installed."""

import tooldeck_missing_dependency  # noqa: F401
