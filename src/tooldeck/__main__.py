"""``python -m tooldeck``: the ``tooldeck`` command line."""

from tooldeck.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
