"""`tafl-vision`: read a board from an image, render one, watch the camera, benchmark.

    tafl-vision read IMAGE [--board board-11|board-9] [--config FILE]   (no --board: the board the grid shows)
    tafl-vision render --board B --position OTN --out FILE [--seed N] [--condition clean|museum|hard] [--hand]
    tafl-vision watch [--camera 0] [--board B] [--config FILE] [--frames N] [--snapshot PNG] [--no-window]
    tafl-vision bench [--frames N] [--condition museum ...]

`read` prints the OTN position record on its last line, or why the board
cannot be read (`hand over board`, `markers not found: 2, 3`, `too dark`)
and exits with code 3.
"""
from __future__ import annotations

import argparse
import sys
import time

import cv2

from calibration.config import Config
from engine import pieces_from_position
from vision.render_conditions import CONDITIONS

EXIT_UNREADABLE = 3
EXIT_USAGE = 2


def _config(path: str | None) -> Config:
    from calibration.config_file import load_config
    return load_config(path)


def _board_size(config: Config, board: str) -> int:
    if board not in config.boards:
        raise ValueError(f"unknown board {board!r}; known: {', '.join(config.boards)}")
    return config.boards[board].squares


def cmd_read(args) -> int:
    from vision.localise import NotReadable
    from vision.reader import BoardReader, board_in_picture
    config = _config(args.config)
    image = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if image is None:
        print(f"cannot read image {args.image}", file=sys.stderr)
        return EXIT_USAGE
    reader = BoardReader(config, args.board or board_in_picture(config, image))
    try:
        reading = reader.read(image)
    except NotReadable as exc:
        print(str(exc))
        return EXIT_UNREADABLE
    low = [i for i, c in enumerate(reading.confidence) if c < 0.9]
    if low:
        from engine import square_name
        print("low confidence: " + ", ".join(f"{square_name(sq, reader.size)} {reading.confidence[sq]:.2f}"
                                             for sq in low))
    print(reading.position)
    return 0


def cmd_render(args) -> int:
    from vision.renderer import render_frame
    config = _config(args.config)
    size = _board_size(config, args.board)
    try:
        pieces = pieces_from_position(args.position, size)
    except ValueError as exc:
        raise ValueError(f"bad position record {args.position!r}: {exc}") from None
    frame = render_frame(pieces, args.board, seed=args.seed, condition=args.condition, hand=args.hand, config=config)
    if not cv2.imwrite(args.out, frame.image):
        print(f"cannot write {args.out}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {args.out} ({frame.image.shape[1]}x{frame.image.shape[0]}, {args.condition}, seed {args.seed})")
    return 0


def cmd_watch(args) -> int:
    """Staff's live view: a pygame window when there is a screen (vision/watch_view.py),
    and always a text line whenever the reading changes (for logs and SSH sessions)."""
    from vision.localise import NotReadable
    from vision.reader import BoardReader
    from vision.sources import CameraSource, open_source
    from vision.stability import StabilityTracker
    from vision.watch_view import WatchFrame, WatchWindow
    config = _config(args.config)
    reader = BoardReader(config, args.board or config.board)
    spec = args.camera if args.camera is not None else config.camera.device
    source = (CameraSource(spec, config.camera.width, config.camera.height, config.camera.fps)
              if spec.isdigit() or spec.startswith("/dev/") else open_source(spec))
    tracker = StabilityTracker(config.camera.stable_s)
    view = WatchWindow(reader.size, reader.size * reader.geometry.pitch) if not args.no_window else None
    if view is not None and not view.open:
        print(f"no window ({view.error}): printing readings as text")
    last, position, shown, started = "", "", 0, time.monotonic()

    def say(text: str) -> None:
        nonlocal last
        if text != last:
            print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)
            last = text

    try:
        while args.frames is None or shown < args.frames:
            item = source.read()
            if item is None:
                if getattr(source, "finite", False):
                    break
                say(getattr(source, "last_error", "") or "waiting for the camera")
                time.sleep(0.2)
                continue
            frame, t = item
            reading = None
            try:
                reading = reader.read(frame)
                status = tracker.update(t, reading)
            except NotReadable as exc:
                status = tracker.unreadable(t, str(exc), image=exc.picture)
            if status.event is not None and status.event.reading is not None:      # (update() gives one)
                position = status.event.reading.position
                say(position)
            elif status.state in ("unreadable", "moving"):
                say(status.reason or status.state.value)
            shown += 1
            if view is not None:
                fps = shown / max(1e-6, time.monotonic() - started)
                if not view.show(WatchFrame(frame, reading, status.state.value, status.reason, position, fps)):
                    break
    except KeyboardInterrupt:
        pass
    finally:
        source.close()
        if view is not None:
            if args.snapshot and not view.save(args.snapshot):
                print("no frame to save", file=sys.stderr)
            view.close()
    return 0


def cmd_bench(args) -> int:
    from vision.bench import report, report_games, run, run_games
    conditions = tuple(args.condition or ["museum"])
    config = _config(args.config)
    res = run(args.frames, conditions, config, one_core=not args.all_threads)
    print(report(res, conditions, args.frames), flush=True)
    if args.plies:
        for condition in conditions:
            print(report_games(run_games(args.plies, condition, config), condition), flush=True)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tafl-vision", description="Read the tafl board from the overhead camera.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("read", help="read one image; prints the OTN position record last")
    p.add_argument("image")
    p.add_argument("--board", choices=None)
    p.add_argument("--config")
    p.set_defaults(func=cmd_read)
    p = sub.add_parser("render", help="render a camera frame of a position")
    p.add_argument("--board", default="board-11")
    p.add_argument("--position", required=True, help="OTN position record, first rank first")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--condition", choices=CONDITIONS, default="museum")
    p.add_argument("--hand", action="store_true", help="an arm reaches over the board")
    p.add_argument("--config")
    p.set_defaults(func=cmd_render)
    p = sub.add_parser("watch", help="show the live reading in a window (and as text lines)")
    p.add_argument("--camera", help="camera index or device path, or a video file / image folder")
    p.add_argument("--board")
    p.add_argument("--config")
    p.add_argument("--frames", type=int, help="stop after this many frames (default: until q, Esc or Ctrl-C)")
    p.add_argument("--snapshot", metavar="PNG", help="save the last view as a picture on the way out")
    p.add_argument("--no-window", action="store_true", help="text lines only")
    p.set_defaults(func=cmd_watch)
    p = sub.add_parser("bench", help="accuracy and speed on rendered, labelled frames")
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--plies", type=int, default=40, help="also replay this many plies of real games (0: none)")
    p.add_argument("--condition", action="append", choices=CONDITIONS)
    p.add_argument("--all-threads", action="store_true",
                   help="let OpenCV use every core (default: one thread, the kiosk's budget)")
    p.add_argument("--config")
    p.set_defaults(func=cmd_bench)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:           # bad input: one clear line
        print(f"tafl-vision: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
