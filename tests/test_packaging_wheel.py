"""The built wheel, installed into fresh venvs, runs every console script.

WHY: the tests run from the source tree, where every file is at hand; a
museum installs the wheel. A data file missing from `package-data`, a module
left out of `packages.find`, an import that needs a package the extra does not
pull in, all pass the rest of the suite and fail only here. Three venvs: the
plain wheel (the engine alone: no numpy, OpenCV or pygame may come with it),
`[robot]` (gantry tools against the simulated controller) and `[kiosk]` at the
tested versions of constraints.txt (every script, and a short run of each).

Slow (a minute or two: it builds a wheel and three venvs); marked `slow`, and
skipped with the reason when pip can reach neither an index nor its cache.
"""
from __future__ import annotations

import re

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.packaging]

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "vision", "robot", "calibration", "kiosk")
SCRIPTS = ("tafl-engine", "tafl-robot", "tafl-gantry-sim", "tafl-vision", "tafl-calibrate", "tafl-kiosk")
NOT_PACKAGE_DATA = {".py", ".pyc", ".md"}
SOURCE_JUNK = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".demo-state", "*.pyc")
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
CLEAN_ENV.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def run(*cmd: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a command; on failure, fail the test with its output (what a maintainer needs to see)."""
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, env=CLEAN_ENV, capture_output=True, text=True, check=False,
                            timeout=timeout)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {result.returncode}\n"
                    f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}")
    return result


def pinned(name: str) -> str:
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.lower().startswith(name.lower() + "=="):
            return line.strip()
    raise AssertionError(f"{name} is not pinned in constraints.txt")


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("packaging")
    probe = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d",
                            str(work / "probe"), pinned("segno")],
                           env=CLEAN_ENV, capture_output=True, text=True, timeout=180, check=False)
    if probe.returncode != 0:
        pytest.skip("pip can reach neither a package index nor its cache: "
                    + (probe.stderr.strip().splitlines() or ["no output"])[-1])
    return work


@pytest.fixture(scope="module")
def wheel(work: Path) -> Path:
    """The wheel, built from a clean copy of the source (the checkout stays untouched)."""
    src = work / "src"
    shutil.copytree(REPO, src, ignore=SOURCE_JUNK)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", work / "dist", src, cwd=work)
    (built,) = (work / "dist").glob("tafl_kiosk-*.whl")
    return built


def pip(bin_dir: Path, *args: str) -> tuple[str, ...]:
    """The test venv's pip working on the venv of ``bin_dir`` (`pip --python`).

    WHY not the venv's own pip: the venvs are made `--without-pip` (ensurepip
    costs ~4 s a venv, and no script of the wheel needs pip); what is checked is
    what the wheel brings into a fresh venv, not which pip put it there."""
    return (sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), *args)


def venv(work: Path, name: str, *requirements: str) -> Path:
    """A fresh venv (no access to the checkout or the test venv) with ``requirements``; returns its bin/."""
    path = work / name
    run(sys.executable, "-m", "venv", "--without-pip", path, cwd=work)
    bin_dir = path / "bin"
    run(*pip(bin_dir, "install", "--quiet", *requirements), cwd=work)
    return bin_dir


def package_data_files() -> set[str]:
    """Every non-Python file git (or the tree) holds inside the packages, as a wheel path."""
    listed = subprocess.run(["git", "ls-files", *PACKAGES], cwd=REPO, capture_output=True, text=True, check=False)
    if listed.returncode == 0 and listed.stdout.strip():
        paths = listed.stdout.split()
    else:
        paths = [str(p.relative_to(REPO)) for pkg in PACKAGES for p in (REPO / pkg).rglob("*") if p.is_file()]
    return {p for p in paths if Path(p).suffix not in NOT_PACKAGE_DATA and "__pycache__" not in p}


def test_every_package_data_file_is_in_the_wheel(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(package_data_files() - names)
    assert not missing, f"not in the wheel (add them to [tool.setuptools.package-data]): {missing}"


def test_the_plain_wheel_is_the_engine_alone(work: Path, wheel: Path) -> None:
    bin_dir = venv(work, "engine-venv", str(wheel))
    installed = run(*pip(bin_dir, "freeze", "--all"), cwd=work).stdout.splitlines()
    assert [line.split(" @ ")[0].split("==")[0] for line in installed] == ["tafl-kiosk"]
    assert "bestmove" in run(bin_dir / "tafl-engine", "--help", cwd=work).stdout
    assert run(bin_dir / "tafl-engine", "variants", cwd=work).stdout.split()[0] == "copenhagen"
    move = run(bin_dir / "tafl-engine", "bestmove", "--variant", "copenhagen", "--level", "easy",
               "--nodes", "2000", "--seed", "1", cwd=work).stdout.strip().splitlines()[-1]
    assert "-" in move
    for heavy in ("numpy", "cv2", "pygame", "serial"):
        probe = subprocess.run([str(bin_dir / "python"), "-c", f"import {heavy}"], cwd=work, env=CLEAN_ENV,
                               capture_output=True, text=True, check=False)
        assert probe.returncode != 0, f"{heavy} came with the plain wheel"


def machine_position(status: str) -> tuple[float, float]:
    """(x, y) from the 'machine X, Y mm' line of `tafl-robot status`."""
    match = re.search(r"machine (-?[0-9.]+), (-?[0-9.]+) mm", status)
    assert match is not None, f"no machine position in: {status}"
    return float(match.group(1)), float(match.group(2))


def test_the_robot_extra_drives_the_simulated_gantry(work: Path, wheel: Path) -> None:
    bin_dir = venv(work, "robot-venv", "-c", str(REPO / "constraints.txt"), f"{wheel}[robot]")
    for script in ("tafl-robot", "tafl-gantry-sim"):
        assert "usage:" in run(bin_dir / script, "--help", cwd=work).stdout
    sim = subprocess.Popen([str(bin_dir / "tafl-gantry-sim"), "--speed-factor", "50"], cwd=work, env=CLEAN_ENV,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert sim.stdout is not None and sim.stderr is not None
    try:
        port = sim.stdout.readline().strip()
        assert port.startswith("/dev/"), f"tafl-gantry-sim printed {port!r}: {sim.stderr.read()}"
        robot = [str(bin_dir / "tafl-robot"), "--port", port, "--state", str(work / "robot-state")]
        run(*robot, "home", cwd=work, timeout=120)
        before = machine_position(run(*robot, "status", cwd=work, timeout=60).stdout)
        run(*robot, "jog", "10", "5", cwd=work, timeout=120)
        status = run(*robot, "status", cwd=work, timeout=60).stdout
        after = machine_position(status)
        assert "Idle" in status
        assert abs(after[0] - before[0] - 10.0) < 1e-6 and abs(after[1] - before[1] - 5.0) < 1e-6, status
    finally:
        sim.terminate()
        sim.wait(timeout=10)


def test_the_kiosk_extra_runs_every_script(work: Path, wheel: Path) -> None:
    bin_dir = venv(work, "kiosk-venv", "-c", str(REPO / "constraints.txt"), f"{wheel}[kiosk]")
    for script in SCRIPTS:
        assert "usage:" in run(bin_dir / script, "--help", cwd=work).stdout, script
    # the kiosk draws every screen (fonts, translations) in a short simulated run
    shots = work / "shots"
    run(bin_dir / "tafl-kiosk", "--simulate", "--headless", "--screenshots", shots, "--state", work / "kiosk-state",
        cwd=work, timeout=300)
    assert len(list(shots.rglob("*.png"))) >= 10
    # vision reads back a rendered frame with the square model shipped in the wheel
    position = "/3t7/11/11/t10/4T6/5K5/11/11/11/11/11/"
    frame = work / "frame.png"
    run(bin_dir / "tafl-vision", "render", "--position", position, "--out", frame, "--condition", "clean",
        "--seed", "1", cwd=work)
    assert run(bin_dir / "tafl-vision", "read", frame, cwd=work).stdout.strip().splitlines()[-1] == position
    # the printable markers (PNG and PDF)
    (work / "markers").mkdir()
    run(bin_dir / "tafl-calibrate", "markers", "--out", work / "markers" / "frame", cwd=work)
    assert (work / "markers" / "frame.pdf").read_bytes().startswith(b"%PDF-")
