"""Tools loaded by path: `tooldeck --tools path/to/file_tools.py`.

The sibling import works as it does under `python file_tools.py`.
"""

from dataclasses import dataclass

from units import celsius_to_fahrenheit

from tooldeck import tool


@dataclass
class Reading:
    celsius: float
    place: str = "高雄"


@tool(tags=["units"])
def to_fahrenheit(celsius: float) -> float:
    """Convert Celsius to Fahrenheit."""
    return celsius_to_fahrenheit(celsius)


@tool(tags=["units"])
def reading(reading: Reading) -> str:
    """Describe a reading."""
    return f"{reading.place}: {celsius_to_fahrenheit(reading.celsius):g}°F"
