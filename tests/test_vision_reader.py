"""Reading rendered frames: positions across conditions, and knowing when it cannot see."""
import subprocess
import sys

import numpy as np
import pytest

from engine import Board
from vision.inference import Verdict, read_move
from vision.labelled import random_position
from vision.localise import NotReadable
from vision.reader import BoardReader
from vision.renderer import render_frame

from tests.helpers.paths import REPO


@pytest.fixture(scope="module")
def readers():
    return {"board-11": BoardReader(board="board-11"), "board-9": BoardReader(board="board-9")}


def _start(variant):
    return {sq: p.value for sq, p in Board(variant).pieces().items()}


@pytest.mark.parametrize("condition", ["clean", "museum"])
@pytest.mark.parametrize("board,variant", [("board-11", "copenhagen"), ("board-9", "tablut")])
def test_start_positions_are_read_exactly(readers, board, variant, condition):
    for seed in (21, 22):
        frame = render_frame(_start(variant), board, seed=seed, condition=condition)
        reading = readers[board].read(frame.image, track=False)
        assert reading.position == Board(variant).position_otn()
        assert reading.confidence.min() > 0.5


def test_random_positions_in_museum_light(readers):
    wrong = 0
    total = 0
    for seed in range(31, 39):
        board = ("board-11", "board-9")[seed % 2]
        size = 11 if board == "board-11" else 9
        pieces = random_position(np.random.default_rng(seed), size)
        frame = render_frame(pieces, board, seed=seed, condition="museum")
        reading = readers[board].read(frame.image, track=False)
        wrong += sum(reading.pieces.get(sq) != pieces.get(sq) for sq in range(size * size))
        total += size * size
    assert wrong == 0, f"{wrong} of {total} squares wrong"


def test_hard_frames_are_mostly_right(readers):
    wrong = total = 0
    for seed in range(41, 45):
        pieces = random_position(np.random.default_rng(seed), 11)
        frame = render_frame(pieces, "board-11", seed=seed, condition="hard")
        try:
            reading = readers["board-11"].read(frame.image, track=False)
        except NotReadable:
            continue                      # refusing is allowed, misreading much is not
        wrong += sum(reading.pieces.get(sq) != pieces.get(sq) for sq in range(121))
        total += 121
    assert total and wrong / total < 0.01


def test_a_hand_over_the_board_is_refused_and_never_makes_a_move(readers):
    refused = 0
    for seed in range(51, 57):
        board = ("board-11", "board-9")[seed % 2]
        variant = "copenhagen" if board == "board-11" else "tablut"
        frame = render_frame(_start(variant), board, seed=seed, condition="museum", hand=True)
        try:
            reading = readers[board].read(frame.image, track=False)
        except NotReadable as exc:
            assert str(exc) == "hand over board" or str(exc).startswith("markers not found: ")
            refused += 1
            continue
        # read anyway: whatever the hand hides must not turn into a move
        assert read_move(Board(variant), reading.probabilities).verdict is not Verdict.MOVE
    assert refused >= 5


def test_darkness_is_reported(readers):
    frame = render_frame(_start("copenhagen"), "board-11", seed=61, condition="clean", dark=0.08)
    with pytest.raises(NotReadable, match="too dark"):
        readers["board-11"].read(frame.image, track=False)


def test_learning_from_a_confirmed_position_moves_the_model(readers):
    reader = BoardReader(board="board-11")
    frame = render_frame(_start("copenhagen"), "board-11", seed=62, condition="museum")
    reading = reader.read(frame.image)
    before = reader.classifier.stats[2].mean.copy()
    reader.learn(reading, Board("copenhagen").position_otn())
    after = reader.classifier.stats[2].mean
    assert not np.allclose(before, after)
    defenders = reading.features.values[[sq for sq, p in _start("copenhagen").items() if p == "T"]].mean(0)
    # the defender class moved towards what this board's defenders look like
    assert np.linalg.norm(after - defenders) < np.linalg.norm(before - defenders)
    assert reader.read(frame.image).position == Board("copenhagen").position_otn()
    reader.classifier.reset()
    assert np.allclose(reader.classifier.stats[2].mean, before)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "vision", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


def test_cli_render_then_read(tmp_path):
    record = Board("tablut").position_otn()
    out = tmp_path / "frame.png"
    r = _cli("render", "--board", "board-9", "--position", record, "--out", str(out), "--seed", "3")
    assert r.returncode == 0 and out.exists()
    r = _cli("read", str(out), "--board", "board-9")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == record


def test_cli_read_says_why_and_exits_3(tmp_path):
    import cv2
    frame = render_frame(_start("copenhagen"), "board-11", seed=63, condition="clean", hide_markers=(2, 3))
    path = tmp_path / "covered.png"
    cv2.imwrite(str(path), frame.image)
    r = _cli("read", str(path))
    assert r.returncode == 3
    assert r.stdout.strip().splitlines()[-1] == "markers not found: 2, 3"


def test_cli_bad_input_is_one_clear_line(tmp_path):
    r = _cli("render", "--board", "board-11", "--position", "/xyz/", "--out", str(tmp_path / "x.png"))
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "position record" in r.stderr


def test_cli_watch_prints_the_settled_position_as_text(tmp_path):
    import cv2
    frame = render_frame(_start("copenhagen"), "board-11", seed=64, condition="museum")
    for i in range(30):                                  # one second of a still board at 30 fps
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), frame.image)
    r = _cli("watch", "--camera", str(tmp_path), "--no-window")      # text only (logs, SSH sessions)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[-1].endswith(Board("copenhagen").position_otn())


def test_doubt_moves_the_best_guess_but_never_raises_the_certainty():
    from vision.reader import no_surer_than
    probs = np.array([[0.9, 0.02, 0.06, 0.02], [0.3, 0.1, 0.5, 0.1]])
    out = no_surer_than(probs, np.array([0.6, 0.8]))
    assert out[0].argmax() == 0 and out[0].max() == pytest.approx(0.6)     # capped, order kept
    assert np.argsort(out[0]).tolist() == np.argsort(probs[0]).tolist()
    assert out[1] == pytest.approx(probs[1])                                # below the cap: as it was
    assert out.sum(1) == pytest.approx([1.0, 1.0])
