"""`tafl-robot`: drive the gantry by hand, one command per process.

Each call connects, does one thing and disconnects; the ledger in the state
directory carries what the robot knows (where every piece is, an interrupted
step) from one call to the next, as it will across a reboot. An interrupted
step found in the ledger is recovered first.

    tafl-robot --port /dev/tafl-gantry status
    tafl-robot --port /dev/pts/5 --state /tmp/robot home
    tafl-robot --port socket://host:2000 move e1 e4 --capture f4
    tafl-robot park f6 | setup copenhagen | clear | jog 10 0 | recover | unlock | ledger

The port is opened exclusively: while the kiosk drives the gantry, a second
process is refused with a clear message (use the kiosk's staff screen, or stop
the kiosk first) instead of reading the kiosk's answers.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from robot.gantry import Gantry, RobotError, check_variant_fits
from robot.grbl import GrblDriver, GrblError, GrblPositionUnknown
from robot.layout import Slot, TableLayout
from robot.ledger import Ledger, LedgerError, ledger_path as ledger_file
from robot.planner import PlanError, Step


def load_config(path: str | None):
    """The configuration file (calibration.config_file), defaults when none is given."""
    from calibration.config_file import load_config as _load

    return _load(path)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tafl-robot", description="Drive the tafl board's gantry.")
    p.add_argument("--port", help="serial device, pty or pyserial URL (default: the config's)")
    p.add_argument("--config", help="configuration file (default: built-in reference hardware)")
    p.add_argument("--state", help="state directory holding the ledger "
                                   "(default: the config's kiosk.state_dir)")
    p.add_argument("-v", "--verbose", action="store_true", help="log the protocol's push messages")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("home", help="run the homing cycle")
    sub.add_parser("status", help="controller state, position and the ledger's summary")
    mv = sub.add_parser("move", help="slide a piece from one square to another")
    mv.add_argument("src")
    mv.add_argument("dst")
    mv.add_argument("--capture", action="append", default=[], metavar="SQUARE",
                    help="a square the move captures: its piece is parked (repeatable)")
    pk = sub.add_parser("park", help="carry the piece on a square to a free storage slot")
    pk.add_argument("square")
    su = sub.add_parser("setup", help="set up a variant's start position from storage")
    su.add_argument("variant")
    su.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a variant option, e.g. layout=lewis for tawlbwrdd (repeatable)")
    sub.add_parser("clear", help="carry every piece on the board to storage")
    jg = sub.add_parser("jog", help="jog the magnet (off) by DX DY machine millimetres")
    jg.add_argument("dx", type=float)
    jg.add_argument("dy", type=float)
    jg.add_argument("--feed", type=float, help="mm/min (default: the drag feed)")
    sub.add_parser("recover", help="home and finish an interrupted step")
    sub.add_parser("unlock", help="leave the alarm lock without homing ($X): only when the "
                                  "carriage is known to be where the controller says")
    sub.add_parser("ledger", help="print where the robot believes every piece is (no port needed)")
    return p


def _print_steps(layout: TableLayout, steps: list[Step]) -> None:
    for s in steps:
        print(f"{s.kind:6s} {s.piece} {layout.name(s.src):>6s} -> {layout.name(s.dst):<6s} "
              f"drag {s.drag_length:6.0f} mm")


def _print_ledger(layout: TableLayout, ledger: Ledger) -> None:
    board = ledger.board()
    for rank in range(layout.size - 1, -1, -1):
        row = "".join(board.get(rank * layout.size + f, ".") for f in range(layout.size))
        print(f"{rank + 1:>3} {row}")
    print("    " + "".join(chr(ord("a") + f) for f in range(layout.size)))
    store = ledger.storage()
    for side in ("attackers", "defenders"):
        held = [s for s in layout.slots(side) if s in store]
        print(f"{side} in storage: {len(held)}/{len(layout.slots(side))}")
    if ledger.pending:
        st = Step.from_json(ledger.pending)
        print(f"interrupted step pending: {st.kind} {layout.name(st.src)} -> {layout.name(st.dst)}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        config = load_config(args.config)
        layout = TableLayout(config)
        state = Path(args.state or config.kiosk.state_dir)
        ledger_path = ledger_file(state, layout.board_name)
        ledger = Ledger.load_or_new(ledger_path, layout)
    except (ValueError, OSError) as exc:
        print(f"tafl-robot: {exc}", file=sys.stderr)
        return 2
    if args.command == "ledger":
        _print_ledger(layout, ledger)
        return 0
    try:
        # parse places before touching the machine, so a typo costs nothing
        if args.command == "move":
            src, dst = layout.parse(args.src), layout.parse(args.dst)
            caps = [layout.parse(c) for c in args.capture]
            if any(isinstance(x, Slot) for x in [src, dst, *caps]):
                raise ValueError("move takes board squares; use park for storage")
        elif args.command == "setup":
            bad = [o for o in args.option if "=" not in o]
            if bad:
                raise ValueError(f"bad option {bad[0]!r}: expected KEY=VALUE")
            check_variant_fits(layout, args.variant)
        elif args.command == "park":
            square = layout.parse(args.square)
            if isinstance(square, Slot):
                raise ValueError(f"{args.square} is a storage slot, not a square")
    except ValueError as exc:
        print(f"tafl-robot: {exc}", file=sys.stderr)
        return 2
    port = args.port or config.gantry.port
    driver = GrblDriver(port, baudrate=config.gantry.baudrate,
                        response_timeout=config.gantry.response_timeout_s,
                        motion_timeout=config.gantry.motion_timeout_s,
                        magnet_off=config.gantry.magnet_off,
                        on_push=(lambda m: logging.info("GRBL: %s", m)) if args.verbose else None)
    gantry = Gantry(driver, layout, ledger, config.gantry, ledger_path=ledger_path)
    try:
        driver.connect()
        if args.command == "status":
            st = driver.status()
            space = driver.space
            print(f"GRBL {driver.version} on {port}: {st.state}"
                  + (f":{st.substate}" if st.substate is not None else "")
                  + (f" ({space.build} build)" if space is not None else ""))
            try:
                mx, my = driver.believe(st)
                bx, by = layout.to_board((mx, my))
                print(f"machine {mx:.3f}, {my:.3f} mm; board frame {bx:.1f}, {by:.1f} mm")
            except (GrblPositionUnknown, GrblError) as exc:
                print(f"position unknown: {exc}")
            _print_ledger(layout, ledger)
            return 0
        if args.command == "unlock":
            gantry.unlock()
            print("unlocked: the controller now believes its position (home when in doubt)")
            return 0
        if args.command == "home":
            gantry.home()
            print("homed")
            return 0
        if args.command == "recover":
            gantry.start()
            step = gantry.recover()
            print("nothing to recover" if step is None else
                  f"recovered {step.kind} {layout.name(step.src)} -> {layout.name(step.dst)}")
            return 0
        gantry.start()
        if ledger.pending is not None:
            step = gantry.recover()
            if step is not None:
                print(f"recovered interrupted {step.kind} {layout.name(step.src)} -> "
                      f"{layout.name(step.dst)}")
        if args.command == "move":
            _print_steps(layout, gantry.move(src, dst, caps))   # type: ignore[arg-type]
        elif args.command == "park":
            _print_steps(layout, gantry.park(square))             # type: ignore[arg-type]
        elif args.command == "setup":
            options = dict(o.split("=", 1) for o in args.option)
            _print_steps(layout, gantry.setup(args.variant, options or None))
        elif args.command == "clear":
            _print_steps(layout, gantry.clear())
        elif args.command == "jog":
            x, y = gantry.jog(args.dx, args.dy, args.feed)
            print(f"machine {x:.3f}, {y:.3f} mm")
        return 0
    except (RobotError, GrblError, PlanError, LedgerError) as exc:
        print(f"tafl-robot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        driver.make_safe()
        print("tafl-robot: interrupted; magnet off", file=sys.stderr)
        return 130
    finally:
        try:
            driver.close()
        except GrblError:
            pass


if __name__ == "__main__":
    sys.exit(main())
