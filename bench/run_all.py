"""Run every benchmark in bench/ one after another and print their figures.

Benchmarks print figures; they never pass or fail. Each runs in its own
process so one slow or broken benchmark does not hide the others.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: modules here that benchmarks use but that are not benchmarks themselves
NOT_BENCHMARKS = {"run_all.py", "foreign_renderer.py"}


def main() -> int:
    scripts = sorted(p for p in HERE.glob("*.py") if p.name not in NOT_BENCHMARKS)
    failed = []
    for script in scripts:
        print(f"== {script.name}", flush=True)
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent)
        if result.returncode != 0:
            failed.append(script.name)
    if failed:
        print("benchmarks that failed to run: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
