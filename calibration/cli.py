"""`tafl-calibrate`: set the kiosk up once, re-check it after a bump.

    tafl-calibrate [--config FILE] config --check FILE | --write-default FILE | --show
    tafl-calibrate markers [--board B] --out FILE [--dpi 300]
    tafl-calibrate camera [--source CAMERA|VIDEO|FOLDER] [--views 20]
    tafl-calibrate board [--image FILE | --source CAMERA] [--annotate OUT.png]
    tafl-calibrate gantry [--port PORT] [--squares b2,j2,j10,b10] [--save]
    tafl-calibrate check [--image FILE | --source CAMERA] [--port PORT | --no-gantry]

This is the one module of the calibration package that drives hardware
through the robot package (the GRBL driver), per docs/architecture.md; the
procedures themselves live in calibration/ and take their inputs as
arguments so the kiosk's staff screen can call them too.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Iterator, TextIO

import numpy as np

from calibration.config import DEFAULT_CONFIG_PATH, Config
from calibration.config_file import ConfigError, config_to_toml, load_config, save_config

if TYPE_CHECKING:
    from calibration.selfcheck import GantryProbe, ProbeFunction

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A one-line error for the technician; main() prints it and exits 1."""


# --------------------------------------------------------------------------- config handling

def _config_path(args: argparse.Namespace) -> str:
    return args.config or DEFAULT_CONFIG_PATH


def _load(args: argparse.Namespace) -> tuple[Config, str]:
    """The config to work on and a description of where it came from."""
    if args.config:
        return load_config(args.config), args.config
    if os.path.exists(DEFAULT_CONFIG_PATH):
        return load_config(DEFAULT_CONFIG_PATH), DEFAULT_CONFIG_PATH
    return Config(), "built-in defaults"


def _board_name(args: argparse.Namespace, config: Config) -> str:
    name = getattr(args, "board", None) or config.board
    if name not in config.boards:
        raise CliError(f"no board named {name!r} in the configuration (known: {', '.join(config.boards)})")
    return name


def cmd_config(args: argparse.Namespace, out: TextIO) -> int:
    if args.write_default:
        path = args.write_default
        if os.path.exists(path) and not args.force:
            raise CliError(f"{path} exists; add --force to replace it (the old one is kept as {path}.bak)")
        save_config(Config(), path)
        print(f"wrote the default configuration to {path}", file=out)
        return EXIT_OK
    if args.check:
        load_config(args.check)
        print(f"{args.check}: OK", file=out)
        return EXIT_OK
    config, source = _load(args)
    print(f"# from {source}", file=out)
    out.write(config_to_toml(config))
    return EXIT_OK


# --------------------------------------------------------------------------- printables

def _output_stem(out: str) -> str:
    root, ext = os.path.splitext(out)
    return root if ext.lower() in (".png", ".pdf") else out


def cmd_markers(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.durable import atomic_write_bytes
    from calibration.print_files import pdf_of_pages, png_with_dpi
    from calibration.printables import charuco_sheet, marker_layout, marker_tile

    config, _ = _load(args)
    board = _board_name(args, config)
    if not 72 <= args.dpi <= 1200:
        raise CliError(f"--dpi must be from 72 to 1200, not {args.dpi:g}")
    stem = _output_stem(args.out)
    directory = os.path.dirname(os.path.abspath(stem))
    if not os.path.isdir(directory):
        raise CliError(f"no directory {directory} for {args.out}")
    layout = marker_layout(config, board, args.dpi)
    tiles = [marker_tile(config, board, i, args.dpi) for i in range(4)]
    spec = _charuco_spec(args)
    charuco = charuco_sheet(spec, args.dpi)
    written = {
        f"{stem}.png": png_with_dpi(layout.image, args.dpi),
        f"{stem}.pdf": pdf_of_pages([(layout.image, args.dpi)] + [(t.image, args.dpi) for t in tiles]),
        f"{stem}-charuco.png": png_with_dpi(charuco.image, args.dpi),
        f"{stem}-charuco.pdf": pdf_of_pages([(charuco.image, args.dpi)]),
    }
    for path, data in written.items():
        atomic_write_bytes(path, data, mode=0o644)    # printables: anyone may read them
    w, h = layout.size_mm
    print(f"{stem}.png: the frame's four markers ({config.markers.dictionary}, ids "
          f"{list(config.markers.ids)}, {config.markers.size_mm:g} mm) for {board}, "
          f"{w:.0f} x {h:.0f} mm at {args.dpi:g} dpi", file=out)
    print(f"{stem}.pdf: the same layout on page 1, then one A4 page per marker with crosshairs "
          "through its centre", file=out)
    print(f"{stem}-charuco.png/.pdf: {spec.describe()}, A4 landscape", file=out)
    print("print at 100 % (no 'fit to page') and measure the 100 mm scale bar", file=out)
    return EXIT_OK


def _charuco_spec(args: argparse.Namespace):
    from calibration.lens import CharucoSpec

    try:
        return CharucoSpec(args.charuco_squares[0], args.charuco_squares[1], args.charuco_square_mm,
                           args.charuco_marker_mm)
    except ValueError as exc:
        raise CliError(str(exc)) from None


# --------------------------------------------------------------------------- frames

def grab_frame(source: str, config: Config, warmup: int = 10) -> np.ndarray:
    """One frame from a camera (index or device path) after the exposure settled, or an image file."""
    import cv2

    if os.path.isfile(source) and not source.startswith("/dev/"):
        image = cv2.imread(source, cv2.IMREAD_COLOR)
        if image is not None:
            return image
    capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
    if not capture.isOpened():
        raise CliError(f"{source}: cannot open this camera, video or image")
    try:
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, config.camera.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, config.camera.height)
        frame = None
        for _ in range(max(1, warmup)):
            ok, got = capture.read()
            if not ok:
                break
            frame = got
        if frame is None:
            raise CliError(f"{source}: no frame could be read")
        return frame
    finally:
        capture.release()


def _image_source(args: argparse.Namespace, config: Config) -> str:
    return args.image or args.source or config.camera.device


# --------------------------------------------------------------------------- camera

def cmd_camera(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.lens import CharucoFinder, ViewCollector, calibrate, frames_from

    config, source = _load(args)
    spec = _charuco_spec(args)
    src = args.source or config.camera.device
    collector = ViewCollector(CharucoFinder(spec, min_corners=args.min_corners))
    deadline = time.monotonic() + args.timeout
    live = not os.path.exists(src) or src.startswith("/dev/") or src.isdigit()
    print(f"collecting views of the {spec.describe()} from {src}"
          + (": move the sheet around the whole image, tilted different ways" if live else ""), file=out)
    try:
        for name, image in frames_from(src, every=args.every, width=config.camera.width,
                                       height=config.camera.height):
            if collector.offer(image, name):
                view = collector.views[-1]
                print(f"  view {len(collector.views):2}: {name}, {len(view.ids)} corners", file=out)
            if len(collector.views) >= args.views:
                break
            if live and time.monotonic() > deadline:
                print(f"  stopped after {args.timeout:g} s", file=out)
                break
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if collector.image_size is None:
        raise CliError(f"{src}: no frames")
    try:
        result = calibrate(collector.views, collector.image_size)
    except ValueError as exc:
        raise CliError(f"{exc} (looked at {collector.frames_seen} frames)") from None
    m = result.camera_matrix
    print(f"{result.views} views of {result.image_size[0]}x{result.image_size[1]}: reprojection error "
          f"{result.rms_px:.3f} px (worst view {max(result.view_errors_px):.3f} px)", file=out)
    print(f"fx {m[0, 0]:.1f}  fy {m[1, 1]:.1f}  cx {m[0, 2]:.1f}  cy {m[1, 2]:.1f}  distortion "
          + " ".join(f"{v:+.4f}" for v in result.distortion_list()), file=out)
    ok = result.rms_px <= args.max_error
    if not ok:
        print(f"reprojection error above {args.max_error:g} px: blurred or mis-detected views; "
              "collect again with the sheet flat and well lit", file=out)
    if (config.camera.width, config.camera.height) != result.image_size:
        print(f"WARNING: frames are {result.image_size[0]}x{result.image_size[1]} but camera.width/height "
              f"say {config.camera.width}x{config.camera.height}: intrinsics depend on the resolution",
              file=out)
    if args.dry_run or not ok:
        print("not saved", file=out)
        return EXIT_OK if ok else EXIT_FAIL
    updated = replace(config, camera=replace(config.camera, camera_matrix=result.matrix_list(),
                                             distortion=result.distortion_list(),
                                             calibration_size=result.image_size))
    path = _config_path(args)
    save_config(updated, path)
    print(f"saved camera.camera_matrix, distortion and calibration_size to {path}", file=out)
    return EXIT_OK


# --------------------------------------------------------------------------- board

def cmd_board(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.board_check import check_board

    config, _ = _load(args)
    board = _board_name(args, config)
    image = grab_frame(_image_source(args, config), config)
    result = check_board(image, config, board)
    for line in result.report(config.boards[board].squares):
        print(line, file=out)
    if args.annotate:
        _write_annotated(args.annotate, image, result, config, board)
        print(f"annotated frame written to {args.annotate}", file=out)
    print("board check " + ("PASSED" if result.ok else "FAILED"), file=out)
    return EXIT_OK if result.ok else EXIT_FAIL


def _write_annotated(path: str, image: np.ndarray, result, config: Config, board: str) -> None:
    """The frame with the markers outlined and each square centre coloured by its measured error."""
    import cv2

    from calibration.geometry import BoardGeometry

    canvas = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    for i, corners in result.found.items():
        cv2.polylines(canvas, [np.round(corners).astype(np.int32)], True, (255, 160, 0), 2)
        cv2.putText(canvas, str(i), tuple(int(v) for v in corners[0]), cv2.FONT_HERSHEY_SIMPLEX,
                    0.7, (255, 160, 0), 2)
    if result.homography is not None:
        geo = BoardGeometry.from_config(config, board)
        centres = np.array([geo.square_center(s) for s in range(geo.size ** 2)])
        pts = result.board_to_image(centres)
        for s, (x, y) in enumerate(pts):
            err = result.square_errors_mm[s] if result.square_errors_mm is not None else np.nan
            colour = (128, 128, 128) if not np.isfinite(err) else (
                (0, 200, 0) if err <= 0.5 else (0, 200, 255) if err <= 1.0 else (0, 0, 255))
            cv2.circle(canvas, (int(round(x)), int(round(y))), 4, colour, -1)
    if not cv2.imwrite(path, canvas):
        raise CliError(f"cannot write {path}")


# --------------------------------------------------------------------------- gantry

def _open_driver(port: str, config: Config):
    from robot.grbl import GrblDriver, GrblError

    driver = GrblDriver(port, baudrate=config.gantry.baudrate,
                        response_timeout=config.gantry.response_timeout_s,
                        motion_timeout=config.gantry.motion_timeout_s,
                        magnet_off=config.gantry.magnet_off)
    try:
        driver.connect()
    except GrblError as exc:
        raise CliError(str(exc)) from None
    return driver


KEY_HELP = ("arrows or w/a/s/d jog, 1/2/3 = step 0.1/1/10 mm, Enter = magnet is under the centre, "
            "x = skip this square, q = quit")
LINE_HELP = ("commands: 'jog DX DY' (machine mm), 'ok' (magnet under the centre), 'skip', 'quit'")


class TerminalKeys:
    """Single key presses from a terminal as commands: ('jog', dx, dy), ('ok'|'skip'|'quit', 0, 0).

    A context manager: the terminal is switched to single-key mode on entry (so
    keys pressed while the gantry homes are not held back waiting for Enter)
    and restored on exit, also after Ctrl-C.
    """

    def __init__(self, stream: TextIO, out: TextIO | None = None):
        self.fd = stream.fileno()
        self.out = out or sys.stdout
        self.step = 1.0
        self._saved: list | None = None

    def __enter__(self) -> "TerminalKeys":
        import termios
        import tty

        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        return self

    def __exit__(self, *exc: object) -> None:
        import termios

        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def __iter__(self) -> Iterator[tuple[str, float, float]]:
        while True:
            raw = os.read(self.fd, 1)
            if not raw:                               # the terminal went away
                yield ("quit", 0.0, 0.0)
                return
            ch = raw.decode(errors="ignore")
            if ch == "\x1b":
                seq = os.read(self.fd, 2).decode(errors="ignore")
                ch = {"[A": "w", "[B": "s", "[C": "d", "[D": "a"}.get(seq, "")
            if not ch:
                continue
            if ch in "123":
                self.step = {"1": 0.1, "2": 1.0, "3": 10.0}[ch]
                print(f"  step {self.step:g} mm", file=self.out, flush=True)
            elif ch in "wasd":
                step = self.step
                dx, dy = {"w": (0, step), "s": (0, -step), "d": (step, 0), "a": (-step, 0)}[ch]
                yield ("jog", float(dx), float(dy))
            elif ch in "\n\r":
                yield ("ok", 0.0, 0.0)
            elif ch == "x":
                yield ("skip", 0.0, 0.0)
            elif ch in "q\x04":
                yield ("quit", 0.0, 0.0)


def _line_commands(stream: TextIO, out: TextIO) -> Iterator[tuple[str, float, float]]:
    """One command per line, for a pipe or a script (and the tests)."""
    for raw in stream:
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        cmd = words[0].lower()
        if cmd == "jog" and len(words) == 3:
            try:
                yield ("jog", float(words[1]), float(words[2]))
            except ValueError:
                print(f"  not a jog: {raw.strip()!r}; {LINE_HELP}", file=out)
        elif cmd in ("ok", "skip", "quit") and len(words) == 1:
            yield (cmd, 0.0, 0.0)
        else:
            print(f"  unknown command {raw.strip()!r}; {LINE_HELP}", file=out)
    yield ("quit", 0.0, 0.0)


def _parse_squares(text: str | None, size: int, default: list[int]) -> list[int]:
    from engine import parse_square

    if not text:
        return default
    squares = []
    for name in text.split(","):
        try:
            squares.append(parse_square(name.strip(), size))
        except ValueError as exc:
            raise CliError(f"--squares: {exc}") from None
    if len(squares) < 3:
        raise CliError("--squares: at least 3 reference squares are needed")
    return squares


def run_gantry_procedure(cal, commands: Iterator[tuple[str, float, float]], squares: list[int],
                         out: TextIO) -> bool:
    """Guide through the reference squares; returns False when the technician quit."""
    from calibration.geometry import square_label

    size = cal.geometry.size
    print("homing...", file=out)
    x, y = cal.home()
    print(f"homed at ({x:.2f}, {y:.2f})", file=out)
    for sq in squares:
        label = square_label(sq, size)
        x, y = cal.goto_square(sq)
        print(f"square {label}: the magnet is near its centre at ({x:.2f}, {y:.2f}); jog it exactly under "
              "the centre", file=out)
        while True:
            cmd, dx, dy = next(commands)
            if cmd == "jog":
                x, y = cal.jog(dx, dy)
                print(f"  at ({x:.2f}, {y:.2f})", file=out)
            elif cmd == "ok":
                ref = cal.record(sq)
                print(f"  recorded {label}: board ({ref.board_mm[0]:.1f}, {ref.board_mm[1]:.1f}) mm = machine "
                      f"({ref.machine_mm[0]:.2f}, {ref.machine_mm[1]:.2f}) mm", file=out)
                break
            elif cmd == "skip":
                print(f"  skipped {label}", file=out)
                break
            else:
                return False
    return True


def cmd_gantry(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from calibration.gantry import (GantryCalibration, GantryFitError, default_reference_squares,
                                    residual_report)
    from robot.grbl import GrblError

    config, _ = _load(args)
    board = _board_name(args, config)
    size = config.boards[board].squares
    squares = _parse_squares(args.squares, size, default_reference_squares(size))
    port = args.port or config.gantry.port
    interactive = stdin.isatty()
    driver = _open_driver(port, config)
    try:
        cal = GantryCalibration(driver, config, board, jog_feed_mm_min=args.feed)
        print(KEY_HELP if interactive else LINE_HELP, file=out)
        if interactive:
            with TerminalKeys(stdin, out) as keys:
                finished = run_gantry_procedure(cal, iter(keys), squares, out)
        else:
            finished = run_gantry_procedure(cal, _line_commands(stdin, out), squares, out)
        if not finished:
            print("quit: nothing saved", file=out)
            return EXIT_FAIL
    except GrblError as exc:
        unsafe = driver.make_safe()
        raise CliError(f"gantry: {exc}; nothing saved" + (f" ({'; '.join(unsafe)})" if unsafe else "")) from None
    finally:
        driver.close()
    try:
        fit = cal.fit(fix_scale=args.rigid)
    except GantryFitError as exc:
        raise CliError(str(exc)) from None
    for line in residual_report(fit, cal.references, cal.geometry.size):
        print(line, file=out)
    limits = cal.check_limits()
    for problem in limits:
        print(f"OUTSIDE TRAVEL: {problem}", file=out)
    if not limits:
        print("every storage slot and the whole board are inside the travel", file=out)
    good = fit.max_mm <= args.max_residual and not limits
    if not good:
        print(f"not saved: residual above {args.max_residual:g} mm or points outside the travel", file=out)
        return EXIT_FAIL
    save = args.save
    if not save and interactive:
        print(f"save into {_config_path(args)}? [y/N] ", end="", file=out, flush=True)
        save = stdin.readline().strip().lower() in ("y", "yes")
    if not save:
        print("not saved (use --save)", file=out)
        return EXIT_OK
    cal.save(_config_path(args))
    print(f"saved gantry.board_origin_mm, rotation_deg and scale to {_config_path(args)}", file=out)
    return EXIT_OK


# --------------------------------------------------------------------------- check

def _probe_gantry(port: str, config: Config) -> ProbeFunction:
    def probe() -> GantryProbe | None:
        from calibration.selfcheck import GantryProbe
        from robot.grbl import GrblAlarm, GrblDriver

        if "://" not in port and not os.path.exists(port):
            return None
        driver = GrblDriver(port, baudrate=config.gantry.baudrate,
                            response_timeout=config.gantry.response_timeout_s,
                            magnet_off=config.gantry.magnet_off)
        version = driver.connect()
        try:
            state = driver.status().state
            settings = driver.settings()          # GRBL answers $$ in the alarm state too
            travel = (settings[130], settings[131]) if 130 in settings and 131 in settings else None
            soft = bool(settings[20]) if 20 in settings else None
            homing = bool(settings[22]) if 22 in settings else None
            homing_alarm = None
            if state == "Alarm" and homing:       # locked at power-up: it must home anyway
                try:
                    driver.home()
                    state = driver.status().state
                except GrblAlarm as exc:          # ALARM:9 = stock Z-first homing cycle
                    homing_alarm = exc.code
            build = driver.space.build if driver.space is not None else None
            return GantryProbe(version, state, travel, soft, homing, build, homing_alarm)
        finally:
            driver.close()
    return probe


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    from calibration.selfcheck import run_self_check

    config, source = _load(args)
    board = _board_name(args, config)
    frame = None
    if not args.no_camera:
        src = _image_source(args, config)
        frame = lambda: grab_frame(src, config)  # noqa: E731
    probe = None if args.no_gantry else _probe_gantry(args.port or config.gantry.port, config)
    report = run_self_check(config, frame, probe, board, source)
    for line in report.lines():
        print(line, file=out)
    return EXIT_OK if report.passed else EXIT_FAIL


# --------------------------------------------------------------------------- main

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tafl-calibrate", description="Calibrate and check the tafl kiosk.")
    p.add_argument("--config", help=f"config file (default {DEFAULT_CONFIG_PATH} if it exists, "
                                    "else built-in defaults; saving writes here)")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("config", help="check, write or show the configuration file")
    g = c.add_mutually_exclusive_group()
    g.add_argument("--check", metavar="FILE", help="validate FILE; exit 1 with one line per problem")
    g.add_argument("--write-default", metavar="FILE", help="write the built-in defaults to FILE")
    c.add_argument("--force", action="store_true", help="with --write-default: replace an existing file")

    def charuco_options(q: argparse.ArgumentParser) -> None:
        q.add_argument("--charuco-squares", type=int, nargs=2, default=(7, 5), metavar=("X", "Y"))
        q.add_argument("--charuco-square-mm", type=float, default=35.0)
        q.add_argument("--charuco-marker-mm", type=float, default=26.0)

    m = sub.add_parser("markers", help="write the printable markers (PNG + PDF) and the ChArUco sheet")
    m.add_argument("--board", help="board name from the config (default: the installed board)")
    m.add_argument("--out", required=True, help="output name; writes NAME.png, NAME.pdf, NAME-charuco.png/.pdf")
    m.add_argument("--dpi", type=float, default=300.0)
    charuco_options(m)

    cam = sub.add_parser("camera", help="calibrate the lens from ChArUco views")
    cam.add_argument("--source", help="camera index or device, a video file, or a folder of images "
                                      "(default camera.device)")
    cam.add_argument("--views", type=int, default=20, help="stop after this many different views")
    cam.add_argument("--every", type=int, default=5, help="look at every Nth frame of a video or camera")
    cam.add_argument("--timeout", type=float, default=180.0, help="seconds to collect from a live camera")
    cam.add_argument("--min-corners", type=int, default=8)
    cam.add_argument("--max-error", type=float, default=1.0, help="refuse to save above this error (px)")
    cam.add_argument("--dry-run", action="store_true", help="report only, do not save")
    charuco_options(cam)

    b = sub.add_parser("board", help="check the four markers against the board geometry")
    b.add_argument("--board")
    src = b.add_mutually_exclusive_group()
    src.add_argument("--image", help="an image file instead of the camera")
    src.add_argument("--source", help="camera index or device (default camera.device)")
    b.add_argument("--annotate", metavar="PNG", help="write the frame with the measured errors drawn")

    gy = sub.add_parser("gantry", help="guided gantry calibration (keyboard jogging)")
    gy.add_argument("--board")
    gy.add_argument("--port", help="GRBL port (default gantry.port)")
    gy.add_argument("--squares", help="reference squares, e.g. b2,j2,j10,b10 (default: one in from "
                                      "each corner)")
    gy.add_argument("--feed", type=float, default=1000.0, help="jog feed, mm/min")
    gy.add_argument("--rigid", action="store_true", help="fit offset and rotation only (scale 1)")
    gy.add_argument("--max-residual", type=float, default=1.0, help="refuse to save above this (mm)")
    gy.add_argument("--save", action="store_true", help="save without asking")

    ch = sub.add_parser("check", help="unattended self-test with a pass/fail summary")
    ch.add_argument("--board")
    src = ch.add_mutually_exclusive_group()
    src.add_argument("--image", help="an image file instead of the camera")
    src.add_argument("--source", help="camera index or device (default camera.device)")
    src.add_argument("--no-camera", action="store_true", help="skip the checks that need a frame")
    gg = ch.add_mutually_exclusive_group()
    gg.add_argument("--port", help="GRBL port (default gantry.port)")
    gg.add_argument("--no-gantry", action="store_true", help="do not talk to the gantry")
    return p


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    try:
        if args.command == "config":
            return cmd_config(args, out)
        if args.command == "markers":
            return cmd_markers(args, out)
        if args.command == "camera":
            return cmd_camera(args, out)
        if args.command == "board":
            return cmd_board(args, out)
        if args.command == "gantry":
            return cmd_gantry(args, out, inp)
        if args.command == "check":
            return cmd_check(args, out)
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"tafl-calibrate: {problem}", file=sys.stderr)
        return EXIT_FAIL
    except CliError as exc:
        print(f"tafl-calibrate: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"tafl-calibrate: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("tafl-calibrate: interrupted, nothing saved", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
