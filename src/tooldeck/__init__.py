"""tooldeck: plain Python functions as tools for language models."""
