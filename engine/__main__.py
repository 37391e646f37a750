"""`python -m engine` is `tafl-engine`."""
import sys

from .cli import main

sys.exit(main())
