"""Compile entry point: ``python optimize.py --optimizer bootstrap [--dataset bundled] [--lm embedded] ...``.

Same as ``groundqa optimize``; see ``python optimize.py --help``.
"""

import os
import sys

# before anything imports litellm (see groundqa/__init__.py); a value the user set wins
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from groundqa.cli.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["optimize", *sys.argv[1:]]))
