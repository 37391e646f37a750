"""`tafl-gantry-sim`: a simulated GRBL 1.1 gantry on a pseudo-terminal, until stopped.

The first line printed is the pty path, so a script can start it and pass the
path to `tafl-robot --port`. Every piece of the configured board starts in
storage. Collisions on the simulated table and injected faults are logged to
stderr. After a `disconnect` fault the controller comes back on a fresh pty
after a second (a re-plugged cable), printed as `reconnected: PATH`; with
`--link PATH` a symlink always points at the current pty, like the udev rule's
/dev/tafl-gantry.

    tafl-gantry-sim --speed-factor 20 --faults miss@2,alarm@5
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time

from robot.layout import TableLayout
from robot.simulator import BUILDS, FIRMWARE_DEFAULTS, GrblSimulator, parse_faults
from robot.table import Table


def _setting(text: str) -> tuple[int, float]:
    key, sep, value = text.partition("=")
    try:
        k, v = int(key.lstrip("$")), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad setting {text!r}: expected N=VALUE, e.g. 110=8000") from None
    if not sep or k not in FIRMWARE_DEFAULTS:
        raise argparse.ArgumentTypeError(f"bad setting {text!r}: unknown GRBL setting ${key}")
    return k, v


def _link(path: str | None, target: str) -> None:
    if not path:
        return
    tmp = f"{path}.tmp{os.getpid()}"
    os.symlink(target, tmp)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tafl-gantry-sim",
                                description="Simulated GRBL 1.1 gantry on a pseudo-terminal.")
    p.add_argument("--config", help="configuration file (default: built-in reference hardware)")
    p.add_argument("--speed-factor", type=float, default=1.0,
                   help="run motion F times faster than real time (default 1)")
    p.add_argument("--faults", default="",
                   help="comma list of KIND[@N]: miss, alarm, disconnect, garble")
    p.add_argument("--set", type=_setting, action="append", default=[], metavar="N=VALUE",
                   help="override a GRBL $ setting of the simulated controller")
    p.add_argument("--link", help="keep a symlink at this path pointing to the current pty")
    p.add_argument("--build", choices=BUILDS, default="stock",
                   help="firmware build: stock 1.1h (machine space -$130..0, the default) or "
                        "origin (HOMING_FORCE_SET_ORIGIN: 0..$130)")
    p.add_argument("--z-first-homing", action="store_true",
                   help="home Z first as stock GRBL does: $H fails with ALARM:9 on an XY gantry")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="tafl-gantry-sim: %(message)s")
    try:
        from calibration.config_file import load_config

        config = load_config(args.config)
        faults = parse_faults(args.faults)
        if args.speed_factor <= 0:
            raise ValueError("--speed-factor must be positive")
        layout = TableLayout(config)
    except (ValueError, OSError) as exc:
        print(f"tafl-gantry-sim: {exc}", file=sys.stderr)
        return 2
    table = Table.in_storage(layout, on_collision=lambda c: print(f"tafl-gantry-sim: {c}",
                                                                  file=sys.stderr, flush=True))
    sim = GrblSimulator(config, speed_factor=args.speed_factor, faults=faults, world=table,
                        layout=layout, settings=dict(args.set), build=args.build,
                        z_first_homing=args.z_first_homing)
    dropped = threading.Event()
    sim.on_disconnect = dropped.set
    port = sim.start()
    _link(args.link, port)
    print(port, flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        while not stop.is_set():
            if dropped.wait(0.2):
                dropped.clear()
                print("disconnected", flush=True)
                time.sleep(1.0)
                port = sim.reconnect()
                _link(args.link, port)
                print(f"reconnected: {port}", flush=True)
    finally:
        sim.stop()
        if args.link and os.path.islink(args.link):
            os.unlink(args.link)
    return 0


if __name__ == "__main__":
    sys.exit(main())
