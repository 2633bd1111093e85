"""Compile entry point: ``python optimize.py --optimizer bootstrap [--dataset bundled] [--lm embedded] ...``.

Same as ``groundqa optimize``; see ``python optimize.py --help``.
"""

import sys

from groundqa.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["optimize", *sys.argv[1:]]))
