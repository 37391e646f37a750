"""`tafl-kiosk`: the museum kiosk, with its hardware or in simulation.

    tafl-kiosk                              the kiosk on the configured camera and gantry
    tafl-kiosk --simulate                   the touchscreen on a simulated table (make demo)
    tafl-kiosk --simulate --headless --autoplay 20 --faults hand,missed-pickup,power-cut
    tafl-kiosk --simulate --headless --autoplay 3 --mode selfplay|referee|visitor [--seed S]
    tafl-kiosk --simulate --headless --visitors 30 --seed 1   a museum day of simulated visitors
    tafl-kiosk --screenshots DIR            every screen as PNG files
    tafl-kiosk record encode|verify|pubkey  the signed take-home game records (kiosk/record_cli.py)

The headless run prints one line per game and, last, exactly
`games: N, completed: N, desyncs: N, lost: N`; its exit status is 0 only if
every game was completed without a desync. The museum day (`--visitors N`,
kiosk/museum_day.py) prints one line per visitor and, last, exactly
`visitors: N, games: G, completed: C, paused: P, stuck: S, lost: L, desyncs: D, turnaround median: T s`;
its exit status is 0 only if nothing was stuck, lost or desynchronised.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from vision.render_conditions import CONDITIONS

if TYPE_CHECKING:
    from kiosk.sim_kiosk import SimSettings

log = logging.getLogger("kiosk")


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WxH, like 1280x800, not {text!r}") from None
    if w < 320 or h < 240:
        raise argparse.ArgumentTypeError(f"size {text} is too small (at least 320x240)")
    return w, h


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tafl-kiosk", description="The museum tafl kiosk.")
    p.add_argument("--simulate", action="store_true", help="no hardware: a simulated table, camera and gantry")
    p.add_argument("--config", metavar="FILE", help="configuration file (default /etc/tafl-kiosk/config.toml)")
    p.add_argument("--state", metavar="DIR", help="state directory (journal, ledger, game log)")
    p.add_argument("--headless", action="store_true", help="no window (with --simulate --autoplay)")
    p.add_argument("--autoplay", type=int, metavar="N", help="play N games with a simulated visitor")
    p.add_argument("--visitors", type=int, metavar="N",
                   help="a museum day: N simulated visitors one after another (with --simulate --headless)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the simulation (default 0)")
    p.add_argument("--faults", metavar="LIST", default="",
                   help="faults to inject: missed-pickup,hand,camera-dropout,serial-unplug,alarm,"
                        "garbled-serial,power-cut (or all)")
    p.add_argument("--variant", default="copenhagen",
                   help="variant(s) the simulated visitor plays, comma-separated (default copenhagen)")
    p.add_argument("--level", default=None,
                   help="the robot's level (autoplay default easy; visitors choose their own unless given)")
    p.add_argument("--mode", choices=("visitor", "selfplay", "referee"), default="visitor",
                   help="with --autoplay: a visitor against the robot (default), the robot against itself "
                        "(attract), or two simulated visitors with the robot as referee (kiosk/exhibit.py)")
    p.add_argument("--visitor", choices=("random", "engine", "yielding", "racing"), default=None,
                   help="the simulated visitor plays random legal moves, the engine's (easy), yields "
                        "(short games), or races the king home (default random; racing in referee mode)")
    p.add_argument("--light", choices=CONDITIONS, default="museum",
                   help="the simulated camera's light (with --simulate): clean, museum (default: spotlights, a "
                        "glare patch, tilt) or hard (dim, strong glare, blur, heavy JPEG; vision/render_conditions.py)")
    p.add_argument("--speed", type=float, default=None,
                   help="simulated gantry speed factor (default 25 headless, 2 with a window)")
    p.add_argument("--screenshots", metavar="DIR", help="save every screen as PNG into DIR and exit")
    p.add_argument("--size", type=_size, default=None, metavar="WxH", help="window size (default from config)")
    p.add_argument("--windowed", action="store_true", help="a window instead of full screen")
    p.add_argument("--log-level", default="INFO", help="logging level (default INFO)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["record"]:                 # the take-home game records (kiosk/record_cli.py)
        from kiosk.record_cli import main as record_main

        return record_main(argv[1:])
    args = build_parser().parse_args(argv)
    # systemd stops the kiosk with SIGTERM: unwind through the finally blocks
    # (magnet off, port closed, search process stopped) as on Ctrl-C
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except (ValueError, OSError) as exc:
        print(f"tafl-kiosk: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from calibration.config_file import load_kiosk_config

    from kiosk.faults import parse_faults

    try:
        config, config_warning = load_kiosk_config(args.config)
    except ValueError as exc:
        if args.simulate or args.headless or args.screenshots or args.autoplay is not None:
            raise                       # a command line run: one line, exit 2
        return _out_of_service(args, str(exc))
    faults = parse_faults(args.faults)
    variants = tuple(v.strip() for v in args.variant.split(",") if v.strip())
    from engine import VARIANTS
    for v in variants:
        if v not in VARIANTS:
            raise ValueError(f"unknown variant {v!r}; known: {', '.join(VARIANTS)}")
    if args.level is not None and args.level not in config.engine.levels:
        raise ValueError(f"unknown level {args.level!r}; known: {', '.join(config.engine.levels)}")
    _setup_logging(args)

    if args.screenshots:
        from kiosk.ui.screenshots import save_screenshots

        save_screenshots(args.screenshots, config)
        return 0
    if args.autoplay is not None and args.visitors is not None:
        raise ValueError("--autoplay and --visitors are two different runs: give one")
    if args.mode != "visitor" and args.autoplay is None:
        raise ValueError("--mode needs --simulate --headless --autoplay N")
    if args.autoplay is not None and not (args.simulate and args.headless):
        raise ValueError("--autoplay needs --simulate --headless")
    if args.visitors is not None and not (args.simulate and args.headless):
        raise ValueError("--visitors needs --simulate --headless")
    if args.headless and args.autoplay is None and args.visitors is None:
        raise ValueError("--headless needs --autoplay N or --visitors N (there is nothing else to do without a screen)")
    if args.faults and args.autoplay is None and args.visitors is None:
        raise ValueError("--faults needs --simulate --headless --autoplay N (or --visitors N)")
    if config_warning is not None and (args.config is not None or not args.simulate):
        from kiosk import notices          # a kiosk install without its config: loud, on the staff screen

        file, problem = config_warning.split(": ", 1)
        notices.post(file, problem, "restore it (tafl-calibrate, or the installer) and restart the kiosk")
    if args.visitors is not None:
        if args.visitors < 1:
            raise ValueError("--visitors needs at least 1 visitor")
        return _visitors(args, config, faults)
    if args.autoplay is not None:
        if args.autoplay < 1:
            raise ValueError("--autoplay needs at least 1 game")
        return _autoplay(args, config, faults, variants)
    size = args.size or tuple(config.kiosk.screen_size)
    fullscreen = config.kiosk.fullscreen and not args.windowed
    if args.simulate:
        return _simulate_window(args, config, variants[0], size, fullscreen)
    return _hardware(args, config, size, fullscreen)


def _out_of_service(args: argparse.Namespace, problem: str) -> int:
    """A museum kiosk whose config file is refused: the resting screen, not a restart loop (kiosk/ui/out_of_service.py)."""
    from calibration.config import DEFAULT_CONFIG_PATH

    from kiosk import lockdown
    from kiosk.sdnotify import Notifier
    from kiosk.ui.out_of_service import run_out_of_service

    _setup_logging(args)
    notifier = Notifier.from_environ()
    fullscreen = not args.windowed
    if fullscreen:
        lockdown.install_signal_handlers()
    file = args.config or DEFAULT_CONFIG_PATH
    return run_out_of_service(file, problem, args.size or (1280, 800), fullscreen,
                              on_ready=lambda: notifier.ready("kiosk: config refused, resting"),
                              on_frame=notifier.tick)


def _setup_logging(args: argparse.Namespace) -> None:
    try:
        from kiosk.logging_setup import setup_logging

        setup_logging(args.log_level.upper(), log_dir="" if args.simulate else None)
    except ImportError:
        logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    if args.headless:
        logging.getLogger().setLevel(max(logging.WARNING, logging.getLogger().level))


def headless_settings(args) -> SimSettings:
    """The headless simulation's knobs from the command line: fast, on the seed, in the light asked for."""
    from kiosk.sim_kiosk import fast_settings

    settings = replace(fast_settings(args.seed), condition=args.light)
    if args.speed:
        settings.speed_factor = args.speed
    return settings


def _autoplay(args, config, faults, variants) -> int:
    from kiosk.autoplay import VisitorStyle
    from kiosk.headless import Autoplay, AutoplayOptions
    settings = headless_settings(args)
    base = Path(args.state) if args.state else Path(tempfile.mkdtemp(prefix="tafl-autoplay-"))
    state_dir = base / time.strftime("run-%Y%m%d-%H%M%S")     # a fresh table needs a fresh journal
    state_dir.mkdir(parents=True, exist_ok=True)
    style = args.visitor or ("racing" if args.mode == "referee" else "random")
    if args.mode == "selfplay":     # the demo starts after the shortest idle wait, and moves on at once
        config = replace(config, exhibit=replace(config.exhibit, selfplay=True, selfplay_after_s=5.0,
                                                 selfplay_move_pause_s=0.0, selfplay_variant=variants[0],
                                                 selfplay_level=args.level or config.exhibit.selfplay_level))
    options = AutoplayOptions(games=args.autoplay, seed=args.seed, faults=faults, variants=variants,
                              level=args.level or "easy", visitor=VisitorStyle(mode=style), mode=args.mode)
    print(f"autoplay{'' if args.mode == 'visitor' else f' ({args.mode})'}: {args.autoplay} games of {', '.join(variants)}, robot level {options.level}, "
          f"faults: {', '.join(faults) or 'none'}, seed {args.seed}, state {state_dir}", flush=True)
    run = Autoplay(config, str(state_dir), options, settings, out=lambda line: print(line, flush=True))
    results = run.run()
    for line in run.summary_lines():
        print(line, flush=True)
    return 0 if all(r.completed and not r.desync for r in results) else 1


def _visitors(args, config, faults) -> int:
    from kiosk.museum_day import MuseumDay
    settings = headless_settings(args)
    base = Path(args.state) if args.state else Path(tempfile.mkdtemp(prefix="tafl-visitors-"))
    state_dir = base / time.strftime("run-%Y%m%d-%H%M%S")
    state_dir.mkdir(parents=True, exist_ok=True)
    print(f"museum day: {args.visitors} visitors, level {args.level or 'their choice'}, "
          f"faults: {', '.join(faults) or 'none'}, seed {args.seed}, state {state_dir}", flush=True)
    day = MuseumDay(config, str(state_dir), args.visitors, args.seed, args.level, faults, settings,
                    out=lambda line: print(line, flush=True))
    totals = day.run_day()
    print(totals.line(), flush=True)
    return 0 if not (totals.stuck or totals.lost or totals.desyncs) else 1


def _simulate_window(args, config, variant, size, fullscreen) -> int:
    from kiosk.sim_kiosk import SimKiosk, SimSettings
    from kiosk.ui.app import run_app

    # the simulated table is new on every run, so its journal and ledger are too
    base = Path(args.state or os.path.join(tempfile.gettempdir(), "tafl-kiosk-sim"))
    state_dir = base / time.strftime("run-%Y%m%d-%H%M%S")
    state_dir.mkdir(parents=True, exist_ok=True)
    settings = SimSettings(seed=args.seed, speed_factor=args.speed or 2.0, condition=args.light)
    rig = SimKiosk(config, str(state_dir), variant, settings, fresh=True)
    log.info("simulation: state in %s, gantry simulator on %s", state_dir, rig.sim.port)
    try:
        return run_app(rig.controller, config, world=rig.world, size=size, fullscreen=fullscreen)
    finally:
        rig.close()


def _hardware(args, config, size, fullscreen) -> int:
    from kiosk.camera_thread import CameraThread
    from kiosk.controller import GameController
    from kiosk.engine_worker import EngineWorker
    from kiosk.gantry_thread import GantryThread
    from kiosk.robot_adapter import GantryMover
    from kiosk import lockdown
    from kiosk.sdnotify import Notifier
    from kiosk.ui.app import run_app
    from kiosk.vision_adapter import UvcFrameSource, VisionFrameReader

    notifier = Notifier.from_environ()
    state_dir = args.state or config.kiosk.state_dir
    Path(state_dir).mkdir(parents=True, exist_ok=True)
    camera = CameraThread(UvcFrameSource(config), VisionFrameReader(config), max_fps=config.camera.fps)
    gantry = GantryThread(GantryMover(config))
    engine = EngineWorker(config.engine.levels, pondering=config.engine.ponder,
                          ponder_max_s=config.engine.ponder_max_s)
    controller = GameController(config, camera, gantry, engine, state_dir, on_poll=notifier.tick,
                                on_state=lambda s: notifier.status(f"kiosk: {s}"))
    if fullscreen:
        lockdown.install_signal_handlers()      # SIGTERM ends through `finally`: magnet off, journal closed
    try:
        return run_app(controller, config, size=size, fullscreen=fullscreen,
                       on_ready=lambda: notifier.ready("kiosk: running"))
    finally:
        notifier.stopping("kiosk: stopping")
        for stop in (gantry.stop, camera.stop, engine.stop, controller.stop):
            try:
                stop()
            except Exception:
                log.exception("while stopping")


if __name__ == "__main__":
    sys.exit(main())
