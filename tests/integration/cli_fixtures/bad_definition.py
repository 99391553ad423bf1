"""A module whose tool is rejected at decoration (`*args` cannot be a tool)."""

from tooldeck import tool


@tool
def spread(*numbers: int) -> int:
    """Sum numbers."""
    return sum(numbers)
