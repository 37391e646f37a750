"""`python -m vision` is `tafl-vision`."""
import sys

from vision.cli import main

sys.exit(main())
