"""``python -m slingsim.cli``: the ``slingsim`` command, as its installed entry point runs it."""
import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
