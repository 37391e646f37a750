"""Vision benchmark: `python bench/vision_bench.py [--frames N] [--condition museum]` (same as `tafl-vision bench`)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
