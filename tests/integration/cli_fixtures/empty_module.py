"""A module with no tools."""

ANSWER = 42
