"""Fuzz the GRBL driver with garbled lines from a fake controller through a real pty.

    python bench/fuzz_grbl.py [--lines 10000] [--seed 1]

A fake GRBL 1.1h (stock build, $130=800 $131=560) on a pseudo-terminal answers
every `?` with one line: a true status report of where it really stands, or a
garbled one (NaN, inf, a position outside the travel, a field cut short, a
report without a position, random or non-ASCII bytes, repeated fields...), and
now and then pushes an ALARM:N or a banner (after which nothing it says may be
believed until the driver unlocks it). The driver is asked for the position
after each line. Printed at the end:

    crashes    an exception that is not the driver's own GrblError
    hangs      a call that took longer than HANG_S
    wrong      a position returned that is not the true one, or returned while
               the truth is unknown (after an alarm or a reset)

What it does not garble: a digit changed inside a well-formed, in-range report.
GRBL's reports carry no checksum, so no driver can tell that from a true report.
"""
from __future__ import annotations

import argparse
import os
import random
import select
import sys
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot.grbl import GrblDriver, GrblError

TRAVEL = (800.0, 560.0)
HANG_S = 3.0
SETTINGS = {20: 1, 22: 1, 23: 3, 27: 2.0, 130: TRAVEL[0], 131: TRAVEL[1], 132: 0.0}

GARBLES = ("true", "true", "true", "nan", "inf", "-inf", "outside", "one_axis", "cut",
           "no_position", "random", "non_ascii", "repeated", "both", "bad_state", "huge",
           "empty", "pipes", "alarm", "banner", "stray_ok", "stray_error", "msg", "wpos_only",
           "long", "bad_bf")


class FakeGrbl:
    """Just enough GRBL 1.1h to connect; status answers come from `next_answer`."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        master, slave = os.openpty()
        tty.setraw(slave)
        self.master, self.slave = master, slave
        self.port = os.ttyname(slave)
        self.truth: tuple[float, float] = (-400.0, -300.0)      # firmware coordinates
        self.trusted = True
        self.kind = "true"
        self._stop = False
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        for fd in (self.master, self.slave):
            os.close(fd)

    def _write(self, data: bytes) -> None:
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def _line(self, text: str) -> None:
        self._write(text.encode("latin-1") + b"\r\n")

    def _report(self, x: float, y: float, state: str = "Idle") -> str:
        return f"<{state}|MPos:{x:.3f},{y:.3f},0.000|FS:0,0>"

    def _status(self) -> None:
        kind, rng = self.kind, self.rng
        x, y = self.truth
        good = self._report(x, y)
        text: str | bytes
        if kind == "true":
            text = good
        elif kind == "nan":
            text = good.replace(f"{x:.3f}", "nan", 1)
        elif kind in ("inf", "-inf"):
            text = good.replace(f"{y:.3f}", kind, 1)
        elif kind == "outside":
            text = self._report(rng.choice([1, -1]) * rng.uniform(820, 1e6), y)
        elif kind == "one_axis":
            text = f"<Idle|MPos:{x:.3f}>"
        elif kind == "cut":
            cut = rng.randrange(1, len(good) - 1)
            text = good[:cut] + (">" if rng.random() < 0.5 else "")
        elif kind == "no_position":
            text = "<Idle|FS:0,0>"
        elif kind == "random":
            text = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
        elif kind == "non_ascii":
            i = rng.randrange(len(good))
            text = good.encode()[:i] + bytes([rng.randrange(128, 256)]) + good.encode()[i:]
        elif kind == "repeated":
            text = good[:-1] + f"|MPos:{x + 5:.3f},{y:.3f},0.000>"
        elif kind == "both":
            text = good[:-1] + f"|WPos:{x:.3f},{y:.3f},0.000>"
        elif kind == "bad_state":
            text = good.replace("Idle", rng.choice(["Idel", "Hold:x", "Run:", "", "Alarm:1:2"]))
        elif kind == "huge":
            text = self._report(float("1e308") * 10 if rng.random() < 0.5 else 1e308, y)
        elif kind == "empty":
            text = "<>"
        elif kind == "pipes":
            text = good.replace("|", "||", 1)
        elif kind == "long":
            text = "<Idle|MPos:" + "9" * 600
        elif kind == "bad_bf":
            text = good[:-1] + "|Bf:15>"
        elif kind == "wpos_only":
            text = f"<Idle|WPos:{x:.3f},{y:.3f},0.000|FS:0,0>"    # WCO comes from $G/$# (zero)
        elif kind == "alarm":
            self._line(f"ALARM:{rng.choice([1, 2, 3, 9, 99, 0])}")
            self.trusted = False
            text = self._report(x, y, "Alarm")
        elif kind == "banner":
            self._line("")
            self._line("Grbl 1.1h ['$' for help]")
            self._line("[MSG:'$H'|'$X' to unlock]")
            self.trusted = False
            text = self._report(0.0, 0.0, "Alarm")
        elif kind == "stray_ok":
            self._line("ok")
            text = good
        elif kind == "stray_error":
            self._line(f"error:{rng.randrange(1, 99)}")
            text = good
        else:   # msg
            self._line("[MSG:" + "".join(rng.choice("abc |:$") for _ in range(10)) + "]")
            text = good
        self._write(text if isinstance(text, bytes) else text.encode("latin-1"))
        self._write(b"\r\n")

    def _command(self, line: str) -> None:
        if line == "$I":
            self._line("[VER:1.1h.20190830:]")
            self._line("[OPT:V,15,128]")
        elif line == "$$":
            for k, v in SETTINGS.items():
                self._line(f"${k}={v:g}")
        elif line == "$X":
            self.trusted = True
            self._line("[MSG:Caution: Unlocked]")
        elif line == "$G":
            self._line("[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]")
        elif line == "$#":
            for name in ("G54", "G55", "G56", "G57", "G58", "G59", "G28", "G30", "G92"):
                self._line(f"[{name}:0.000,0.000,0.000]")
            self._line("[TLO:0.000]")
        self._line("ok")

    def _loop(self) -> None:
        buf = b""
        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                continue
            for b in data:
                if b == ord("?"):
                    self._status()
                elif b == 0x18:
                    self._line("")
                    self._line("Grbl 1.1h ['$' for help]")
                    self._line("[MSG:'$H'|'$X' to unlock]")
                    self.trusted = False
                elif b in (0x0A, 0x0D):
                    if buf:
                        self._command(buf.decode("ascii", "replace"))
                    buf = b""
                elif b < 0x80:
                    buf += bytes([b])


def run(lines: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    fake = FakeGrbl(rng)
    # short timeouts keep 10,000 lines to minutes: a pty answers in well under a millisecond
    drv = GrblDriver(fake.port, banner_timeout=0.2, response_timeout=0.03, motion_timeout=2.0)
    counts = {"lines": 0, "believed": 0, "refused": 0, "crashes": 0, "hangs": 0, "wrong": 0}
    try:
        drv.connect()
        drv.unlock()
        for _ in range(lines):
            fake.truth = (-rng.uniform(0, TRAVEL[0]), -rng.uniform(0, TRAVEL[1]))
            fake.kind = rng.choice(GARBLES)
            counts["lines"] += 1
            t0 = time.monotonic()
            try:
                x, y = drv.position()
            except GrblError:
                counts["refused"] += 1
                result = None
            except Exception as exc:   # noqa: BLE001 - counting is the point
                counts["crashes"] += 1
                print(f"crash on {fake.kind}: {type(exc).__name__}: {exc}", file=sys.stderr)
                result = None
            else:
                result = (x, y)
            if time.monotonic() - t0 > HANG_S:
                counts["hangs"] += 1
            if result is not None:
                counts["believed"] += 1
                want = (fake.truth[0] + TRAVEL[0], fake.truth[1] + TRAVEL[1])
                if not fake.trusted or any(abs(a - b) > 5e-4 for a, b in zip(result, want)):
                    counts["wrong"] += 1
                    print(f"wrong on {fake.kind}: believed {result}, truth {want} "
                          f"(trusted {fake.trusted})", file=sys.stderr)
            # keep the run going as an operator would: unlock after an alarm, reset when
            # the answers are out of step
            try:
                if drv._out_of_step or drv.critical:
                    drv.soft_reset()
                if not drv.position_known:
                    drv.unlock()
            except GrblError:
                pass
    finally:
        drv.drop_connection()
        fake.stop()
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=10000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    import logging
    logging.basicConfig(level=logging.CRITICAL)
    t0 = time.monotonic()
    c = run(args.lines, args.seed)
    print(f"GRBL driver fuzz: {c['lines']} garbled-or-true lines in {time.monotonic() - t0:.1f} s: "
          f"believed {c['believed']}, refused {c['refused']}")
    print(f"crashes {c['crashes']}, hangs {c['hangs']}, wrong positions believed {c['wrong']}")
    return 0 if c["crashes"] == c["hangs"] == c["wrong"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
