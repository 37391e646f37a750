"""`python -m kiosk` is `tafl-kiosk`."""
import sys

from kiosk.cli import main

if __name__ == "__main__":     # the search process is spawned: it re-imports this module
    sys.exit(main())
