"""`python -m calibration` is `tafl-calibrate`."""
import sys

from calibration.cli import main

sys.exit(main())
