"""Stands in for fastmcp not being installed (put this directory first on PYTHONPATH)."""

raise ModuleNotFoundError("No module named 'fastmcp'", name="fastmcp")
