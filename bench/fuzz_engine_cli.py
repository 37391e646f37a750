"""A bounded fuzz run of `tafl-engine`: does it keep its contract for any input?

    python bench/fuzz_engine_cli.py                 # 2,000 inputs, seed 1, 2 at a time
    python bench/fuzz_engine_cli.py --runs 200 --seed 5 --show 5

Inputs are valid command lines (moves, perft, replay, bestmove, variants) on
positions, moves and game records made by seeded random play, then mutated:
characters inserted (other digits, zeros, slashes, newlines, NUL, non-ASCII,
long digit runs), deleted, duplicated, truncated; numbers made huge, negative,
zero-padded or non-ASCII; flags dropped, repeated, swapped or invented.
Each runs as a real subprocess with a timeout and a 512 MB address-space limit.

The contract (engine/cli.py): exit 0 with nothing on stderr; exit 1 (replay
only: an illegal move) or 2 (bad input) with exactly ONE line on stderr; no
traceback; bounded time and memory. Counted:
  crash  - a traceback, a signal, an exit code other than 0/1/2, or MemoryError;
  hang   - no exit within the timeout;
  wrong exit code - the contract above broken (two lines, stderr on success,
           exit 1 outside replay), or an input a strict reference reading
           refuses (a position or number with non-ASCII digits, leading zeros,
           whitespace inside) accepted with exit 0.
Prints `crashes: N, hangs: N, wrong exit codes: N` and the time taken.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine import VARIANTS, Board  # noqa: E402

NOISE = ["0", "00", "1", "9", "12", "\u0663", "\u06f4", "\u0661\u0661", "/", "//", "\n", " ", "\t", "\0",
         "x", "-", "t", "T", "K", "k", "e", "é", "\ufeff", "9" * 30, "1" + "0" * 12, "9" * 5000, "?", "*"]
NUMBERS = ["0", "-1", "1", "2", "3", "01", "\u0662", "1e3", "nan", "inf", "-0", "1_0", " 2", "+2",
           "9" * 30, "9" * 5000, "2.5", "", "0x10", "1000000"]
_RUN = re.compile(r"(?:[tTK]|[1-9][0-9]?)+")


@dataclass
class Case:
    args: list[str]
    record: str | None = None        # written to a file given as the last argument


def random_game(rng: random.Random, variant: str, plies: int) -> tuple[Board, list[str]]:
    board = Board(variant)
    texts: list[str] = []
    for _ in range(plies):
        if board.outcome() is not None:
            break
        mv = rng.choice(board.legal_moves)
        texts.append(board.move_to_otn(mv))
        board.push(mv)
    return board, texts


def record_text(rng: random.Random, moves: list[str]) -> str:
    lines = ["[Variant \"x\"]"] if rng.random() < 0.3 else []
    for i in range(0, len(moves), 2):
        lines.append(f"{i // 2 + 1}. " + " ".join(moves[i:i + 2]))
    if rng.random() < 0.2:
        lines.append(rng.choice(["timeout", "resigned", "1-0", "*"]))
    return "\n".join(lines) + "\n"


def mutate_text(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        i = rng.randint(0, len(text))
        if kind == 0:
            text = text[:i] + rng.choice(NOISE) + text[i:]
        elif kind == 1 and text:
            text = text[:i] + text[i + 1:]
        elif kind == 2 and text:
            j = rng.randint(i, min(len(text), i + 20))
            text = text[:j] + text[i:j] * rng.randint(1, 50) + text[j:]
        elif kind == 3:
            text = text[:i]
        elif kind == 4:
            text = re.sub(r"[0-9]+", lambda m: rng.choice(NUMBERS) if rng.random() < 0.3 else m.group(0), text)
        else:
            text = text.replace("1", "\u0661") if rng.random() < 0.5 else text.replace("1", "01", 1)
    return text


def base_case(rng: random.Random) -> Case:
    variant = rng.choice(list(VARIANTS))
    board, moves = random_game(rng, variant, rng.randint(0, 30))
    cmd = rng.choice(["moves", "moves", "perft", "replay", "replay", "bestmove", "variants"])
    if cmd == "variants":
        return Case(["variants"] + (["-v"] if rng.random() < 0.5 else []))
    args = [cmd, "--variant", variant]
    if cmd == "replay":
        return Case(args, record_text(rng, moves))
    if rng.random() < 0.8:
        args += ["--position", board.position_otn(), "--turn", board.turn.value]
    if cmd == "moves" and rng.random() < 0.5:
        args.append("--json")
    if cmd == "perft":
        args += ["--depth", rng.choice(["0", "1", "2"])]
    if cmd == "bestmove":
        args += ["--level", "easy", "--time", "0.05", "--nodes", "300"]
    return Case(args)


def _argv(case: Case) -> list[str]:
    """The command line as the OS can pass it: argv cannot hold NUL (records can)."""
    return [a.replace("\0", "") for a in case.args]


def mutate(rng: random.Random, case: Case) -> Case:
    args = list(case.args)
    record = case.record
    roll = rng.random()
    if record is not None and roll < 0.6:
        record = mutate_text(rng, record)
    elif roll < 0.8 and len(args) > 1:
        i = rng.randrange(1, len(args))
        if "--position" in args[:-1] and rng.random() < 0.5:
            i = args.index("--position") + 1
        if args[i - 1] in ("--depth", "--time", "--nodes", "--seed") and rng.random() < 0.7:
            args[i] = rng.choice(NUMBERS)
        else:
            args[i] = mutate_text(rng, args[i])
    else:
        kind = rng.randrange(5)
        if kind == 0 and len(args) > 1:
            del args[rng.randrange(1, len(args))]
        elif kind == 1:
            args.insert(rng.randint(1, len(args)), rng.choice(["--option", "--bogus", "--depth", "--turn",
                                                               "--position", "-", "--json", "x=y"]))
        elif kind == 2 and len(args) > 2:
            i, j = rng.sample(range(1, len(args)), 2)
            args[i], args[j] = args[j], args[i]
        elif kind == 3:
            args += ["--option", rng.choice(["repetition=draw", "king_armed=yes", "layout=lewis",
                                             "shieldwall=\u0661", "x", "=1", "corner_escape=maybe"])]
        else:
            args[0] = rng.choice(["moves", "perft", "replay", "bestmove", "variants", "otep-x", ""])
    return Case(args, record)


def strict_position_ok(text: str, size: int) -> bool:
    """A reference reading of an OTN position, independent of engine/otn.py."""
    ranks = text.strip().strip("/").split("/")
    if text != text.strip() or len(ranks) != size:
        return False
    for rank in ranks:
        if not _RUN.fullmatch(rank):
            return False
        if sum(int(t) if t.isdigit() else 1 for t in re.findall(r"[1-9][0-9]?|[tTK]", rank)) != size:
            return False
    return text.count("K") <= 1


def refused_by_reference(case: Case) -> str | None:
    """Why a strict reading refuses this command line (None: no opinion)."""
    a = _argv(case)
    if a and a[0] in ("moves", "perft", "bestmove") and "--variant" in a and "--position" in a:
        try:
            variant = a[a.index("--variant") + 1]
            pos = a[a.index("--position") + 1]
        except IndexError:
            return None
        if variant in VARIANTS and a.count("--position") == 1 and not pos.startswith("--"):
            if not strict_position_ok(pos, VARIANTS[variant].size):
                return "position"
    for flag in ("--depth", "--time", "--nodes", "--seed"):
        if flag in a and a.index(flag) + 1 < len(a):
            value = a[a.index(flag) + 1]
            if not value.isascii() or value != value.strip() or "_" in value:
                return flag
    return None


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))


def run_case(case: Case, tmp: Path, n: int, timeout: float,
             repo: Path = REPO) -> tuple[str | None, Case, str]:
    args = _argv(case)
    if case.record is not None:
        path = tmp / f"record-{n}.txt"
        path.write_bytes(case.record.encode("utf-8", "surrogatepass"))
        args.append(str(path))
    env = dict(os.environ, PYTHONPATH=str(repo))
    try:
        run = subprocess.run([sys.executable, "-m", "engine", *args], cwd=repo, env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                             preexec_fn=_limits)
    except subprocess.TimeoutExpired:
        return "hang", case, ""
    finally:
        if case.record is not None:
            (tmp / f"record-{n}.txt").unlink(missing_ok=True)
    err = run.stderr.decode("utf-8", "replace")
    if "Traceback" in err or run.returncode not in (0, 1, 2) or "MemoryError" in err:
        return "crash", case, err[-300:]
    lines = err.splitlines()
    if run.returncode == 0:
        if err:
            return "wrong", case, "exit 0 with stderr: " + err[:200]
        why = refused_by_reference(case)
        if why:
            return "wrong", case, f"exit 0 although the {why} is bad"
        return None, case, ""
    if len(lines) != 1 or not err.endswith("\n"):
        return "wrong", case, f"exit {run.returncode} with {len(lines)} stderr lines"
    if run.returncode == 1 and (not args or args[0] != "replay"):
        return "wrong", case, "exit 1 outside replay: " + err[:200]
    return None, case, ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a run counts as a hang")
    ap.add_argument("--show", type=int, default=3, help="examples to print per kind of failure")
    ap.add_argument("--repo", type=Path, default=REPO,
                    help="the checkout whose engine is run (e.g. an older one, for a before figure)")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    cases = []
    for _ in range(args.runs):
        case = base_case(rng)
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            case = mutate(rng, case)
        cases.append(case)
    t0 = time.perf_counter()
    counts = {"crash": 0, "hang": 0, "wrong": 0}
    shown = {k: 0 for k in counts}
    accepted = 0
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        for kind, case, detail in pool.map(lambda nc: run_case(nc[1], Path(tmp), nc[0], args.timeout,
                                                                   args.repo.resolve()),
                                           enumerate(cases)):
            if kind is None:
                accepted += 1
                continue
            counts[kind] += 1
            if shown[kind] < args.show:
                shown[kind] += 1
                print(f"{kind}: {[a[:60] for a in case.args]} record={case.record[:80]!r} -> {detail!r}"
                      if case.record is not None else f"{kind}: {[a[:60] for a in case.args]} -> {detail!r}")
    elapsed = time.perf_counter() - t0
    print(f"{args.runs} inputs (seed {args.seed}), {accepted} kept the contract; "
          f"crashes: {counts['crash']}, hangs: {counts['hang']}, wrong exit codes: {counts['wrong']}; "
          f"{elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
