"""Test-wide settings: pygame renders headless, data paths are shared."""
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
