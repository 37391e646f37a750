"""The vision reader scored on frames of the independent renderer (bench/foreign_renderer.py).

WHY: vision's square model is fitted on vision's own renderer, and the issue
is scored on frames "from a renderer it has never seen". This is that check,
held out: nothing in vision is fitted or tuned on these frames.

    python bench/foreign_vision.py [--frames 60] [--condition museum ...] [--plies 40] [--hands 20] [--seed0 0]

Per condition it renders `--frames` positions, a quarter of them on board-9
(random legal Tablut positions) and the rest on board-11 (half real Copenhagen
game plies from tests/data/copenhagen-games.csv replayed by the engine, half
random legal positions), and reads each one exactly as `tafl-vision read`
does (a fresh BoardReader on the default config, `read(image)`). It prints the
per-square error, the whole-board accuracy, refusals with their reasons, the
frames the CLI would flag with "low confidence", the errors among squares read
with confidence >= 0.9, and the confusion table. With `--plies` it also replays
real games on one fixed foreign scene per game (mounted camera, same light,
new sensor noise each frame), infers every move with vision.inference as the
kiosk does (learning from the start position and each confirmed position) and
counts recorded move accepted / wrong move accepted / not accepted. With
`--hands` it renders that many frames with a visitor's arm over the board
and counts those reported as "hand over board"; the hand-free frames above
count the false hand reports.

Seeds: development used --seed0 10,000,000 and up; the figures in
vision/README.md use 50,000,000 and up, never looked at while the reader
was changed.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "bench") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench"))

import foreign_renderer  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import Board  # noqa: E402
from vision.reader import BLOWN_SURE  # noqa: E402

GAMES_CSV = ROOT / "tests" / "data" / "copenhagen-games.csv"
CONFIDENT = 0.9  # the CLI lists squares below this as "low confidence"


def load_games(path: Path = GAMES_CSV) -> list[list[str]]:
    with open(path, newline="") as fh:
        return [row[0].split() for row in csv.reader(fh) if row]


def replay(moves: list[str], plies: int) -> Board | None:
    """The Copenhagen board after the first `plies` recorded moves (None if the record breaks off)."""
    board = Board("copenhagen")
    for text in moves[:plies]:
        if board.is_game_over():
            return None
        try:
            board.push(board.parse_move(text.split("x")[0]))
        except ValueError:
            return None
    return board


def random_position(variant: str, rng: np.random.Generator, max_plies: int = 80) -> Board:
    board = Board(variant)
    for _ in range(int(rng.integers(0, max_plies + 1))):
        if board.is_game_over():
            break
        moves = board.legal_moves
        if not moves:
            break
        board.push(moves[int(rng.integers(len(moves)))])
    return board


@dataclass(frozen=True)
class Sample:
    board: str
    position: str
    source: str      # "game" or "random"

    @property
    def variant(self) -> str:
        """The rule set its position is played by: board-9 holds random Tablut, board-11 Copenhagen."""
        return "tablut" if self.board == "board-9" else "copenhagen"


def sample_positions(n: int, seed: int, games: list[list[str]] | None = None) -> list[Sample]:
    """n labelled positions: every 4th on board-9 (random Tablut), the rest half real plies, half random."""
    rng = np.random.default_rng(seed)
    games = games if games is not None else load_games()
    out: list[Sample] = []
    while len(out) < n:
        i = len(out)
        if i % 4 == 3:
            out.append(Sample("board-9", random_position("tablut", rng).position_otn(), "random"))
        elif i % 2 == 0:
            moves = games[int(rng.integers(len(games)))]
            b = replay(moves, int(rng.integers(0, len(moves) + 1)))
            if b is not None:
                out.append(Sample("board-11", b.position_otn(), "game"))
        else:
            out.append(Sample("board-11", random_position("copenhagen", rng).position_otn(), "random"))
    return out


def frame_samples(condition: str, n: int, seed0: int, arm: bool = False) -> list[Sample]:
    """The positions of the first n frames of `condition` the bench scores from `seed0` (hand-free, or
    with a visitor's arm over the board: score_frames, score_hands)."""
    return sample_positions(n, seed0 + 7919 * ((11 if arm else 1) + foreign_renderer.CONDITIONS.index(condition)))


def frame_seed(seed0: int, k: int, arm: bool = False) -> int:
    """The render seed of frame k: its camera, board, light and noise (and the arm's pose)."""
    return seed0 + 1000 * k + (29 if arm else 17)


def render_frame(sample: Sample, condition: str, seed: int, arm: bool = False) -> np.ndarray:
    """The picture of one bench frame (`seed`: frame_seed), with the visitor's arm the seed gives if `arm`."""
    hand = None
    if arm:
        width = foreign_renderer.Layout.from_config(Config(), sample.board).width
        hand = foreign_renderer.random_hand(np.random.default_rng((seed, 5)), width)
    return foreign_renderer.render(sample.board, sample.position, seed=seed, condition=condition, hand=hand)


def frame(condition: str, seed0: int, k: int, arm: bool = False) -> tuple[Sample, np.ndarray]:
    """Frame k of `condition` from `seed0`, as the bench scores it: its position and its picture."""
    sample = frame_samples(condition, k + 1, seed0, arm)[k]
    return sample, render_frame(sample, condition, frame_seed(seed0, k, arm), arm)


def truth_classes(position: str, size: int) -> np.ndarray:
    from engine import pieces_from_position
    from vision.position import SquareClass
    pieces = pieces_from_position(position, size)
    return np.array([int(SquareClass.from_letter(pieces[sq].value if sq in pieces else None))
                     for sq in range(size * size)])


@dataclass
class FrameScore:
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((4, 4), np.int64))
    boards: int = 0
    boards_right: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    hands: int = 0                   # frames with a visitor's arm over the board
    hands_refused: int = 0           # ... reported as "hand over board"
    hands_unread: int = 0            # ... refused for another reason (a marker under the arm)
    hands_moved: int = 0             # ... read as a board from which the move reader accepts a move
    hands_sure_wrong: int = 0        # ... squares of those read wrong with confidence >= CONFIDENT
    flagged: int = 0                 # frames the CLI prints "low confidence" for
    confident_wrong: int = 0         # squares read wrong with confidence >= CONFIDENT
    held: int = 0                    # squares read with confidence < CONFIDENT (held back: the kiosk waits)
    boards_sure_right: int = 0       # boards whose every square is read right and sure
    blown: int = 0                   # squares blown pure white by glare, wood and top (Reading.features.saturated)
    blown_wrong: int = 0             # ... whose best guess is wrong
    failures: list[str] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)

    @property
    def square_error(self) -> float:
        total = self.confusion.sum()
        return float((total - np.trace(self.confusion)) / total) if total else float("nan")


def read_like_cli(image: np.ndarray, board: str, config=None):
    """`tafl-vision read` on an image: default config, a fresh reader, read(image)."""
    from vision.cli import _config
    from vision.reader import BoardReader
    config = config if config is not None else _config(None)
    return BoardReader(config, board).read(image)


def frame_reading(condition: str, seed0: int, k: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Frame k of `condition` from `seed0` read as `tafl-vision read` reads it, with the default config:
    the board's size, the true classes and the reading's class probabilities (the tests' one way in)."""
    sample, image = frame(condition, seed0, k)
    config = Config()
    size = config.boards[sample.board].squares
    return size, truth_classes(sample.position, size), read_like_cli(image, sample.board, config).probabilities


def score_hands(condition: str, frames: int, seed0: int, res: FrameScore, verbose: bool = False) -> None:
    """Frames with a visitor's arm over the board: each must be reported as "hand over board"."""
    from vision.cli import _config
    from vision.localise import NotReadable
    config = _config(None)
    for k, sample in enumerate(frame_samples(condition, frames, seed0, arm=True)):
        image = render_frame(sample, condition, frame_seed(seed0, k, arm=True), arm=True)
        res.hands += 1
        try:
            reading = read_like_cli(image, sample.board, config)
        except NotReadable as exc:
            res.hands_refused += int(str(exc) == "hand over board")
            res.hands_unread += int(str(exc) != "hand over board")
        else:
            truth = truth_classes(sample.position, reading.size)
            sure_wrong = (reading.probabilities.argmax(1) != truth) & (reading.confidence >= CONFIDENT)
            res.hands_sure_wrong += int(sure_wrong.sum())
            moved = moves_from_arm(sample, reading.probabilities)
            res.hands_moved += int(bool(moved))
            res.failures.append(f"{condition} seed {frame_seed(seed0, k, arm=True)} {sample.board}: "
                                f"an arm over the board read as a board ({int(sure_wrong.sum())} squares sure and wrong;"
                                f" move accepted: {', '.join(moved) or 'none'})")
            if verbose:
                print(res.failures[-1], flush=True)


def moves_from_arm(sample: Sample, probabilities: np.ndarray) -> list[str]:
    """The moves vision.inference.read_move accepts from an arm frame read as a board, judged against the
    position under the arm with either side to move: what the kiosk would play if the arm held still.

    WHY: an arm the hand checks miss is safe only while the move reader, which decides from the squares
    read sure, finds no move in the picture (issue 15: "never a wrong move accepted")."""
    from vision.inference import Verdict, read_move
    moved = []
    for turn in ("attackers", "defenders"):
        reading = read_move(Board.from_otn(sample.variant, sample.position, turn=turn), probabilities)
        if reading.verdict is Verdict.MOVE:
            moved.append(f"{reading.move_otn} ({turn})")
    return moved


def score_frames(condition: str, frames: int, seed0: int = 0, verbose: bool = False) -> FrameScore:
    from vision.cli import _config
    from vision.localise import NotReadable
    config = _config(None)
    res = FrameScore()
    for k, sample in enumerate(frame_samples(condition, frames, seed0)):
        seed = frame_seed(seed0, k)
        image = render_frame(sample, condition, seed)
        size = config.boards[sample.board].squares
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            reading = read_like_cli(image, sample.board, config)
        except NotReadable as exc:
            res.refused[str(exc)] = res.refused.get(str(exc), 0) + 1
            res.failures.append(f"{condition} seed {seed} {sample.board}: refused ({exc})")
            if verbose:
                print(res.failures[-1], flush=True)
            continue
        res.times_ms.append((time.perf_counter() - t0) * 1000)
        res.cpu_ms.append((time.process_time() - c0) * 1000)
        truth = truth_classes(sample.position, size)
        pred = reading.probabilities.argmax(1)
        conf = reading.probabilities.max(1)
        np.add.at(res.confusion, (truth, pred), 1)
        res.boards += 1
        res.boards_right += int((truth == pred).all())
        res.flagged += int((conf < CONFIDENT).any())
        wrong = np.nonzero(truth != pred)[0]
        res.confident_wrong += int((conf[wrong] >= CONFIDENT).sum())
        res.held += int((conf < CONFIDENT).sum())
        res.boards_sure_right += int((truth == pred).all() and (conf >= CONFIDENT).all())
        blown = reading.features.saturated
        res.blown += int(blown.sum())
        res.blown_wrong += int((blown & (truth != pred)).sum())
        if len(wrong):
            from engine import square_name
            detail = ", ".join(f"{square_name(int(s), size)} {truth[s]}->{pred[s]} ({conf[s]:.2f})" for s in wrong[:8])
            res.failures.append(f"{condition} seed {seed} {sample.board} {sample.source}: {detail}")
            if verbose:
                print(res.failures[-1], flush=True)
    return res


@dataclass
class GameScore:
    plies: int = 0
    right: int = 0
    wrong: int = 0
    held: dict[str, int] = field(default_factory=dict)
    asked: int = 0                   # held back, and the kiosk asks which of 2-6 moves (vision.bench.score_ply)
    asked_right: int = 0             # ... with the played move among them
    shown: int = 0                   # held back without those: the visitor is asked to show it on the screen
    shown_right: int = 0             # ... with the played move among the moves the camera leaves
    settled: int = 0                 # in doubt at first, decided by the fresh pictures (--fresh)
    frames: int = 1                  # pictures fused a ply (--fused), and more when in doubt (--fresh)
    fresh: int = 0
    wrong_detail: list[str] = field(default_factory=list)


def score_games(condition: str, plies: int, seed0: int = 0, first_game: int = 0, config=None,
                learn: bool = True, frames: int = 1, fresh: int = 0) -> GameScore:
    """Real games, ply by ply, on one foreign scene per game; every move inferred back from one
    picture, or (`frames` > 1, `fresh`) as the kiosk does: `frames` pictures of the still board
    fused, and `fresh` more when that is in doubt (vision.bench.score_ply)."""
    from vision.cli import _config
    from vision.bench import recorded_plies, score_ply
    from vision.localise import NotReadable
    from vision.reader import BoardReader
    config = config if config is not None else _config(None)
    games = load_games()
    res = GameScore(frames=frames, fresh=fresh)
    g = first_game
    while res.plies < plies and g < len(games):
        moves = games[g]
        g += 1
        if len(moves) < 6:
            continue
        scene = seed0 + 100_003 * g + foreign_renderer.CONDITIONS.index(condition)
        board = Board("copenhagen")
        reader = BoardReader(config, "board-11")
        start = foreign_renderer.render("board-11", board.position_otn(), seed=0, condition=condition,
                                        config=config, scene_seed=scene)
        if learn:
            try:
                reader.learn(reader.read(start), board.position_otn())
            except NotReadable:
                pass
        for ply, text, move, after in recorded_plies(board, moves):
            if res.plies >= plies:
                break
            image = foreign_renderer.render("board-11", after.position_otn(), seed=ply, condition=condition,
                                            config=config, scene_seed=scene)
            def picture(i: int, position: str = after.position_otn(), ply: int = ply, scene: int = scene) -> np.ndarray:
                # the same still board under the same light: only the sensor's noise is new
                return foreign_renderer.render("board-11", position, seed=ply + 10_000 * i, condition=condition,
                                               config=config, scene_seed=scene)

            wrong = score_ply(reader, board, move, after, image, res, learn=learn, picture=picture,
                              frames=frames, fresh=fresh)
            if wrong is not None:
                res.wrong_detail.append(f"game {g} ply {ply}: played {text}, accepted {wrong.move_otn} "
                                        f"(margin {wrong.margin:.1f})")
    return res


def report_frames(res: FrameScore, condition: str, frames: int) -> str:
    names = ["empty", "attacker", "defender", "king"]
    total = int(res.confusion.sum())
    lines = [f"foreign renderer, {condition}: {frames} frames"]
    wrong = total - int(np.trace(res.confusion))
    sure = total - res.held
    lines.append(f"  squares read: {total}; held back (confidence < {CONFIDENT}): {res.held} ({100 * res.held / max(total, 1):.2f}%);"
                 f" wrong and sure: {res.confident_wrong} of {sure} sure squares"
                 f" ({100 * res.confident_wrong / max(sure, 1):.3f}%)")
    lines.append(f"  best guess of every square (held back ones too): {total - wrong} of {total} right"
                 f" ({100 * (total - wrong) / max(total, 1):.2f}%), per-square error {100 * res.square_error:.3f}% ({wrong} wrong)")
    seen, seen_wrong = total - res.blown, wrong - res.blown_wrong
    lines.append(f"  squares blown pure white by glare (nothing left to see, read at most {BLOWN_SURE} sure): {res.blown},"
                 f" {res.blown_wrong} of them wrong; the squares the camera saw: {seen - seen_wrong} of {seen} right"
                 f" ({100 * (seen - seen_wrong) / max(seen, 1):.2f}%)")
    if res.boards:
        lines.append(f"  boards fully right: {res.boards_right}/{res.boards} = {100 * res.boards_right / res.boards:.1f}%"
                     f" (every square right and sure: {res.boards_sure_right}); frames flagged low confidence: {res.flagged}")
    refused = sum(res.refused.values())
    lines.append(f"  frames refused: {refused}" + (" (" + "; ".join(f"{k}: {v}" for k, v in sorted(res.refused.items())) + ")"
                                                   if refused else ""))
    lines.append(f"  false hand reports on hand-free frames: {res.refused.get('hand over board', 0)} of {frames}")
    if res.hands:
        lines.append(f"  frames with a hand over the board: {res.hands}; reported as a hand {res.hands_refused}, "
                     f"refused for another reason {res.hands_unread}, read as a board {res.hands - res.hands_refused - res.hands_unread}"
                     f" (a move accepted from them, either side to move: {res.hands_moved}; squares read sure and wrong:"
                     f" {res.hands_sure_wrong})")
    lines.append("  confusion (rows = truth, columns = read):")
    lines.append("  " + f"{'':>10}" + "".join(f"{n:>10}" for n in names))
    for i, n in enumerate(names):
        lines.append("  " + f"{n:>10}" + "".join(f"{int(v):>10}" for v in res.confusion[i]))
    if res.times_ms:
        t = np.array(res.times_ms)
        c = np.array(res.cpu_ms)
        lines.append(f"  read time incl. reader construction (1 OpenCV thread): median {np.median(t):.1f} ms, "
                     f"p95 {np.percentile(t, 95):.1f} ms; CPU time median {np.median(c):.1f} ms, p95 {np.percentile(c, 95):.1f} ms")
    return "\n".join(lines)


def report_games(res: GameScore, condition: str) -> str:
    from vision.bench import asked_text, fused_text
    held = sum(res.held.values())
    detail = " (" + "; ".join(f"{k}: {v}" for k, v in sorted(res.held.items())) + ")" if held else ""
    out = (f"  move inference ({condition}, real games, one foreign scene per game, "
           f"{fused_text(res.frames, res.fresh, res.settled)}): {res.plies} plies; "
           f"correct {res.right}, wrong {res.wrong}, held back {held}{detail}{asked_text(res)}")
    for d in res.wrong_detail:
        out += "\n    WRONG " + d
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score the vision reader on the independent renderer's frames.")
    ap.add_argument("--frames", type=int, default=60, help="frames per condition")
    ap.add_argument("--condition", action="append", choices=foreign_renderer.CONDITIONS)
    ap.add_argument("--plies", type=int, default=40, help="plies of real games per condition for move inference (0: none)")
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("--fused", type=int, default=1,
                    help="pictures of each ply's still board fused, as the kiosk does (default 1: one picture)")
    ap.add_argument("--fresh", type=int, default=0,
                    help="more pictures when a ply is in doubt, as the kiosk's look-again (kiosk/board_watch.py: 3)")
    ap.add_argument("--hands", type=int, default=0, help="also this many frames with a visitor's arm over the board")
    ap.add_argument("--failures", action="store_true", help="list every misread frame")
    args = ap.parse_args(argv)
    import cv2
    cv2.setNumThreads(1)
    for condition in args.condition or ["clean", "museum", "hard"]:
        res = score_frames(condition, args.frames, args.seed0, verbose=args.failures)
        if args.hands:
            score_hands(condition, args.hands, args.seed0, res, verbose=args.failures)
        print(report_frames(res, condition, args.frames), flush=True)
        if args.plies:
            print(report_games(score_games(condition, args.plies, args.seed0, frames=args.fused, fresh=args.fresh),
                               condition), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
