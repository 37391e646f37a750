"""`python -m robot` is `tafl-robot`."""
import sys

from robot.cli import main

sys.exit(main())
