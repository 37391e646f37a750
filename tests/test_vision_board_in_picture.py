"""`tafl-vision read` without --board reads the board the picture shows, 11 x 11 or 9 x 9.

The two boards' markers lie within 2 % of each other, so the markers cannot
tell them apart; read as the 11 x 11 board, a 9 x 9 board's picture was
"hand over board" (its crossings all on wood). vision.reader.board_in_picture
picks the board whose grid crossings the picture shows as lines.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import Board  # noqa: E402
from vision.reader import board_in_picture  # noqa: E402
from vision.renderer import render_frame  # noqa: E402


@pytest.mark.parametrize("condition", ["museum", "hard"])
@pytest.mark.parametrize("board, variant", [("board-11", "copenhagen"), ("board-9", "tablut")])
def test_the_board_is_told_by_its_grid(condition, board, variant):
    image = foreign_renderer.render(board, Board(variant).position_otn(), seed=10_000_417, condition=condition)
    assert board_in_picture(Config(), image) == board


def test_without_markers_the_configured_board_is_kept():
    frame = render_frame({}, "board-9", seed=5, condition="clean", hide_markers=(0, 1, 2, 3))
    assert board_in_picture(Config(), frame.image) == Config().board


def test_cli_reads_a_9x9_picture_without_being_told(tmp_path):
    record = Board("tablut").position_otn()
    frame = render_frame({sq: p.value for sq, p in Board("tablut").pieces().items()}, "board-9", seed=7,
                         condition="museum")
    path = tmp_path / "tablut.png"
    cv2.imwrite(str(path), frame.image)
    r = subprocess.run([sys.executable, "-m", "vision", "read", str(path)], cwd=REPO, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == record
    assert foreign_vision.truth_classes(record, 9).shape == (81,)
