"""A sibling module of file_tools.py."""


def celsius_to_fahrenheit(celsius: float) -> float:
    return celsius * 9 / 5 + 32
