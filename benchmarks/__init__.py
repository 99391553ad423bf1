"""Benchmarks: tooldeck against its peers and the floors (see run.py)."""
