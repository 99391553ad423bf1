"""Built-in tools, written only against tooldeck's public API.

Importing this package registers them in the default registry.
"""

from tooldeck.tools.weather import get_weather

__all__ = ["get_weather"]
