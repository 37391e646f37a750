"""How well and how fast the reader reads: a labelled set from the renderer, scored.

Prints per-square accuracy, whole-board accuracy, the confusion table, the
frames it refused (and why), and the median and 95th-percentile reading time
per 1280x720 frame on one core. The seeds are disjoint from the model's
training seeds (vision.train), so this is a held-out score.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from calibration.config import Config
from vision.labelled import labelled_frames
from vision.localise import LENS_FITS, NotReadable, pose_lost
from vision.position import SquareClass
from vision.reader import BoardReader

BENCH_SEED0 = 200_000


@dataclass
class BenchResult:
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((4, 4), np.int64))
    boards: int = 0
    boards_right: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    times_ms: list[float] = field(default_factory=list)          # a frame from a fresh start
    first_ms: list[float] = field(default_factory=list)          # a new camera's first frame (lens fitted too)
    tracked_ms: list[float] = field(default_factory=list)        # the next frame of a still camera
    # CPU time of the same fresh-start reads: what a frame costs the process,
    # unaffected by other programs competing for the cores (wall time is not)
    cpu_ms: list[float] = field(default_factory=list)

    @property
    def square_error(self) -> float:
        total = self.confusion.sum()
        return float((total - np.trace(self.confusion)) / total) if total else float("nan")


def run(frames: int, conditions: tuple[str, ...], config: Config | None = None, seed0: int = BENCH_SEED0,
        one_core: bool = True) -> BenchResult:
    config = config or Config()
    if one_core:
        cv2.setNumThreads(1)
    readers: dict[str, BoardReader] = {}
    res = BenchResult()
    for lf in labelled_frames(range(seed0, seed0 + frames), conditions, config=config):
        reader = readers.setdefault(lf.board, BoardReader(config, lf.board))
        image = lf.rendered.image
        t0 = time.perf_counter()
        try:
            reader.read(image, track=False)
            res.first_ms.append((time.perf_counter() - t0) * 1000)
            # each frame is another camera: its first frames fit the lens from the grid (LENS_FITS of them,
            # vision/localise.BoardLocaliser._fit_lens), as a kiosk's camera does once when it starts
            for _ in range(LENS_FITS - 1):
                reader.read(image, track=True)
            t0 = time.perf_counter()
            c0 = time.process_time()
            reading = reader.read(image, track=False)
        except NotReadable as exc:
            key = str(exc)
            res.refused[key] = res.refused.get(key, 0) + 1
            continue
        res.times_ms.append((time.perf_counter() - t0) * 1000)
        res.cpu_ms.append((time.process_time() - c0) * 1000)
        t0 = time.perf_counter()
        reader.read(image, track=True)
        res.tracked_ms.append((time.perf_counter() - t0) * 1000)
        truth = np.array([int(SquareClass.from_letter(lf.rendered.pieces.get(sq))) for sq in range(reader.size ** 2)])
        pred = reading.probabilities.argmax(1)
        np.add.at(res.confusion, (truth, pred), 1)
        res.boards += 1
        res.boards_right += int((truth == pred).all())
    return res


def report(res: BenchResult, conditions: tuple[str, ...], frames: int) -> str:
    names = [c.name.lower() for c in SquareClass]
    threads = cv2.getNumThreads()
    thread_text = f"{threads} OpenCV thread" + ("s" if threads > 1 else "")
    lines = [f"vision bench: {frames} rendered 1280x720 frames, conditions {', '.join(conditions)}, "
             f"boards board-11 and board-9, OpenCV threads {threads}"]
    total = int(res.confusion.sum())
    lines.append(f"squares read: {total}; per-square accuracy {100 * (1 - res.square_error):.3f}% "
                 f"(error {100 * res.square_error:.3f}%)")
    if res.boards:
        lines.append(f"whole-board accuracy: {res.boards_right}/{res.boards} = {100 * res.boards_right / res.boards:.1f}%")
    refused = sum(res.refused.values())
    lines.append(f"frames refused: {refused}" + (" (" + "; ".join(f"{k}: {v}" for k, v in sorted(res.refused.items())) + ")"
                                                 if refused else ""))
    lines.append("confusion (rows = truth, columns = read):")
    lines.append(f"{'':>10}" + "".join(f"{n:>10}" for n in names))
    for i, n in enumerate(names):
        lines.append(f"{n:>10}" + "".join(f"{int(v):>10}" for v in res.confusion[i]))
    if res.times_ms:
        t = np.array(res.times_ms)
        lines.append(f"time per frame ({thread_text}), markers searched in the whole frame: median {np.median(t):.1f} ms, "
                     f"95th percentile {np.percentile(t, 95):.1f} ms")
        t = np.array(res.cpu_ms)
        lines.append(f"CPU time per frame, markers searched in the whole frame: median {np.median(t):.1f} ms, "
                     f"95th percentile {np.percentile(t, 95):.1f} ms")
        t = np.array(res.tracked_ms)
        lines.append(f"time per frame ({thread_text}), live camera (markers tracked from the last frame): "
                     f"median {np.median(t):.1f} ms, 95th percentile {np.percentile(t, 95):.1f} ms")
    if res.first_ms:
        t = np.array(res.first_ms)
        lines.append(f"a new camera's first frame ({thread_text}; markers searched, the lens fitted from the grid, "
                     f"once per camera): median {np.median(t):.1f} ms, 95th percentile {np.percentile(t, 95):.1f} ms")
    return "\n".join(lines)


@dataclass
class GameBenchResult:
    plies: int = 0
    right: int = 0              # the recorded move accepted
    wrong: int = 0              # another move accepted: the failure that must not happen
    held: dict[str, int] = field(default_factory=dict)   # not accepted: ambiguous, mismatch, unreadable
    asked: int = 0              # of the ambiguous: the kiosk asks the visitor which of 2-6 moves
    asked_right: int = 0        # ... with the recorded move among them (else they can only put it back)
    shown: int = 0              # of the ambiguous without those: the visitor is asked to show it on the screen
    shown_right: int = 0        # ... with the recorded move among the moves the camera leaves
    settled: int = 0            # in doubt at first, decided by the fresh pictures (score_ply's `fresh`)


def run_games(plies: int, condition: str, config: Config | None = None, seed0: int = BENCH_SEED0 + 50_000,
              csv_path: str | None = None) -> GameBenchResult:
    """Replay real Copenhagen games ply by ply on rendered frames and infer every move back.

    One mounted camera per game; the reader learns from each confirmed
    position, as in the kiosk. A ply whose move is not accepted is counted,
    then the game continues from the recorded move (the kiosk would ask the
    visitor and look again).
    """
    import csv
    from pathlib import Path

    from engine import Board
    from vision.renderer import render_frame

    config = config or Config()
    path = Path(csv_path) if csv_path else Path(__file__).resolve().parents[1] / "tests" / "data" / "copenhagen-games.csv"
    with open(path, newline="") as fh:
        games = [row[0].split() for row in csv.reader(fh) if row]
    res = GameBenchResult()
    game_no = 0
    while res.plies < plies and game_no < len(games):
        moves = games[game_no]
        game_no += 1
        board = Board("copenhagen")
        reader = BoardReader(config, "board-11")
        pieces = lambda b: {sq: p.value for sq, p in b.pieces().items()}  # noqa: E731
        seed = seed0 + game_no * 1000
        camera = render_frame(pieces(board), "board-11", seed=seed, condition=condition, config=config).camera
        for ply, _text, move, after in recorded_plies(board, moves):
            if res.plies >= plies:
                break
            frame = render_frame(pieces(after), "board-11", seed=seed + ply, condition=condition, config=config,
                                 camera=camera)
            score_ply(reader, board, move, after, frame.image, res)
    return res


def recorded_plies(board, moves: list[str]):
    """(ply, text, move, board after it) for each recorded move in turn, while it parses
    and is legal on `board` and the game is not over. The caller plays the move on
    `board` before asking for the next one (score_ply does)."""
    for ply, text in enumerate(moves, 1):
        if board.is_game_over():
            return
        try:
            move = board.parse_move(text.split("x")[0])
        except ValueError:
            return
        if not board.is_legal(move):
            return
        after = board.copy()
        after.push(move)
        yield ply, text, move, after


def score_ply(reader: BoardReader, board, move, after, image: np.ndarray, res,
              learn: bool = True, picture: Callable[[int], np.ndarray] | None = None, frames: int = 1,
              fresh: int = 0):
    """One ply of a replayed game, counted into `res` (its plies, right, wrong, held).

    `image` shows the board `after` the recorded `move`; the move is inferred
    from it against `board` (before the move). With `picture` (the i-th
    further picture of the same still board, new sensor noise), the move is
    inferred as the kiosk does: from `frames` pictures fused by the one
    stillness tracker (vision/stability.py), and, when that is in doubt,
    again after `fresh` more pictures (the kiosk's look-again). A right move
    teaches the reader the confirmed position (when `learn`), as in the
    kiosk. The board is then advanced by the recorded move whatever was
    inferred, as the kiosk would after asking the visitor. Returns the
    inference when a WRONG move was accepted (for a report), else None."""
    from vision.inference import Verdict, read_move
    from vision.stability import StabilityTracker

    res.plies += 1
    tracker = StabilityTracker(stable_s=0.0, min_frames=1)
    taken = 0

    def look(count: int):
        """`count` more pictures into the tracker; the still board fused over them (as in the
        kiosk, a picture that cannot be read ends the still run unless only a marker was lost)."""
        nonlocal taken
        unreadable: NotReadable | None = None
        for _ in range(count):
            shot = image if taken == 0 or picture is None else picture(taken)
            try:
                tracker.update(taken / 30.0, reader.read(shot))
                unreadable = None
            except NotReadable as exc:
                tracker.unreadable(taken / 30.0, str(exc), keep_run=pose_lost(str(exc)), image=exc.picture)
                unreadable = exc
            taken += 1
        event = tracker.still()
        if event is None or event.reading is None:
            raise unreadable or NotReadable("no still picture")
        return event.reading

    try:
        reading = look(frames if picture is not None else 1)
        inf = read_move(board, reading.probabilities)
        if inf.verdict is Verdict.AMBIGUOUS and picture is not None and fresh:
            reading = look(fresh)
            inf = read_move(board, reading.probabilities)
            res.settled += inf.verdict is not Verdict.AMBIGUOUS
    except NotReadable as exc:
        res.held[str(exc)] = res.held.get(str(exc), 0) + 1
        board.push(move)
        return None
    wrong = None
    if inf.verdict is Verdict.MOVE:
        if inf.move == move:
            res.right += 1
            if learn:
                reader.learn(reading, after.position_otn())
        else:
            res.wrong += 1
            wrong = inf
    else:
        res.held[inf.verdict.value] = res.held.get(inf.verdict.value, 0) + 1
        hit = any(c.move == move for c in inf.offered)
        if inf.candidates:
            res.asked, res.asked_right = res.asked + 1, res.asked_right + hit
        elif inf.possible:
            res.shown, res.shown_right = res.shown + 1, res.shown_right + hit
    board.push(move)
    return wrong


def asked_text(res) -> str:
    """The held-back plies the kiosk would ask the visitor about ("which move did you make?"), and
    those it would ask to show the move on the screen (kiosk/turns.py, "fix_board.show")."""
    return (f"; asked which move {res.asked} (the played move offered in {res.asked_right});"
            f" asked to show it on the screen {res.shown} (the played move among those the camera leaves"
            f" in {res.shown_right})")


def fused_text(frames: int, fresh: int, settled: int) -> str:
    """How the plies were read: one picture, or fused as the kiosk does (score_ply)."""
    if frames <= 1 and not fresh:
        return "one picture a ply"
    return f"{frames} pictures fused a ply, {fresh} more when in doubt (settled {settled})"


def report_games(res: GameBenchResult, condition: str) -> str:
    held = sum(res.held.values())
    detail = " (" + "; ".join(f"{k}: {v}" for k, v in sorted(res.held.items())) + ")" if held else ""
    return (f"replayed real games ({condition}): {res.plies} plies; recorded move accepted {res.right}, "
            f"wrong move accepted {res.wrong}, not accepted {held}{detail}{asked_text(res)}")
