"""tafl-calibrate end to end: config, printables, board, gantry (robot simulator), check."""
from __future__ import annotations

import io
import re
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.cli import main
from calibration.config import Config
from calibration.config_file import config_to_toml, load_config, save_config
from calibration.geometry import BoardGeometry, GantryTransform
from calibration.print_files import png_dpi
from test_calibration_imaging import CENTRE, board_texture, calibrated_config, make_camera, render


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


# ----------------------------------------------------------------------------- config

def test_write_default_then_check(tmp_path, capsys):
    path = tmp_path / "config.toml"
    assert run(["config", "--write-default", str(path)])[0] == 0
    assert load_config(path) == Config()
    code, out = run(["config", "--check", str(path)])
    assert code == 0 and out.strip() == f"{path}: OK"
    before = path.read_bytes()
    assert run(["config", "--write-default", str(path)])[0] == 1
    assert "exists; add --force" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_check_reports_each_problem_on_stderr(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text('[gantry]\nscal = 1\nbaudrate = "x"\n')
    assert run(["config", "--check", str(path)])[0] == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"tafl-calibrate: {path}: gantry.scal: expected one of the known keys (did you mean 'scale'?), "
        "got an unknown key",
        f"tafl-calibrate: {path}: gantry.baudrate: expected an integer, got 'x' (a string)",
    ]


# ----------------------------------------------------------------------------- printables

def _found(match: re.Match[bytes] | None) -> re.Match[bytes]:
    assert match is not None, "the PDF lacks a part we wrote"
    return match


def _pdf_pages(data: bytes) -> list[tuple[tuple[float, float], np.ndarray]]:
    """Parse our own minimal PDF back: check the xref offsets, return (page size pt, image) per page."""
    start = int(_found(re.search(rb"startxref\n(\d+)\n%%EOF\n$", data)).group(1))
    assert data[start:start + 4] == b"xref"
    count = int(_found(re.match(rb"xref\n0 (\d+)\n", data[start:])).group(1))
    entries = re.findall(rb"(\d{10}) 00000 n \n", data[start:])
    assert len(entries) == count - 1
    objects = {}
    for number, offset in enumerate(entries, start=1):
        offset = int(offset)
        assert data[offset:].startswith(b"%d 0 obj\n" % number)
        objects[number] = data[offset:data.index(b"\nendobj\n", offset)]
    pages = []
    for body in objects.values():
        if b"/Type /Page " not in body:
            continue
        box = [float(v) for v in _found(re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", body)).groups()]
        img = objects[int(_found(re.search(rb"/Im0 (\d+) 0 R", body)).group(1))]
        w, h, n = (int(v) for v in _found(re.search(rb"/Width (\d+) /Height (\d+) .*/Length (\d+)", img)).groups())
        raw = img[img.index(b"stream\n") + 7:][:n]
        pages.append(((box[0], box[1]), np.frombuffer(zlib.decompress(raw), np.uint8).reshape(h, w)))
    return pages


def test_markers_are_written_at_true_scale(tmp_path):
    code, out = run(["markers", "--out", str(tmp_path / "frame.pdf"), "--dpi", "150"])
    assert code == 0, out
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["frame-charuco.pdf", "frame-charuco.png", "frame.pdf", "frame.png"]
    data = (tmp_path / "frame.png").read_bytes()
    assert png_dpi(data) == pytest.approx(150.0, abs=0.02)    # pHYs counts whole pixels per metre
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)

    # every marker's corners sit where the geometry says, at 150 dpi, within half a pixel (0.09 mm)
    config = Config()
    geo = BoardGeometry.from_config(config)
    reach = config.markers.offset_mm + config.markers.size_mm / 2 + config.markers.quiet_zone_mm + 15.0
    px_per_mm = 150 / 25.4
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = detector.detectMarkers(image)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for c, i in zip(corners, ids.ravel()):
        want = np.array([((x + reach) * px_per_mm - 0.5, (geo.width + reach - y) * px_per_mm - 0.5)
                         for x, y in geo.marker_corners(int(i))])
        assert np.abs(c.reshape(4, 2) - want).max() / px_per_mm < 0.25

    pages = _pdf_pages((tmp_path / "frame.pdf").read_bytes())
    assert len(pages) == 5
    (w_pt, h_pt), first = pages[0]
    assert np.array_equal(first, image)
    assert w_pt == pytest.approx(image.shape[1] / 150 * 72, abs=0.01)
    for (w_pt, h_pt), _ in pages[1:]:
        assert (w_pt / 72 * 25.4, h_pt / 72 * 25.4) == pytest.approx((210.0, 297.0), abs=0.2)

    charuco = cv2.imread(str(tmp_path / "frame-charuco.png"), cv2.IMREAD_GRAYSCALE)
    from calibration.lens import CharucoFinder, CharucoSpec
    view = CharucoFinder(CharucoSpec()).find(charuco)
    assert view is not None and len(view.ids) == 24             # every inner corner of 7 x 5
    # 35 mm squares: neighbouring corners 35 mm apart on paper
    pts = dict(zip(view.ids.tolist(), view.image_points))
    assert np.linalg.norm(pts[1] - pts[0]) / px_per_mm == pytest.approx(35.0, abs=0.2)


def test_markers_refuses_bad_board(tmp_path, capsys):
    assert run(["markers", "--board", "board-13", "--out", str(tmp_path / "x")])[0] == 1
    assert "no board named 'board-13'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- board

def test_board_command_on_rendered_frame(tmp_path):
    cam = make_camera(CENTRE, 700.0, 14.0, 60.0, 25.0, dist=(-0.05, 0.0, 0.0, 0.0, 0.0))
    config = calibrated_config(cam)
    cfg_path = tmp_path / "config.toml"
    save_config(config, cfg_path)
    cv2.imwrite(str(tmp_path / "frame.png"), render(board_texture(config), cam))
    code, out = run(["--config", str(cfg_path), "board", "--image", str(tmp_path / "frame.png"),
                     "--annotate", str(tmp_path / "annotated.png")])
    assert code == 0, out
    assert "markers found: [0, 1, 2, 3]" in out
    assert "board check PASSED" in out
    worst = float(re.search(r"error at square centres .*: max ([\d.]+) mm", out).group(1))
    assert worst < 1.0
    assert cv2.imread(str(tmp_path / "annotated.png")).shape == (720, 1280, 3)


def test_board_command_fails_on_misplaced_marker(tmp_path):
    cam = make_camera(CENTRE, 700.0, 10.0, 0.0, 0.0)
    config = calibrated_config(cam)
    cfg_path = tmp_path / "config.toml"
    save_config(config, cfg_path)
    cv2.imwrite(str(tmp_path / "frame.png"), render(board_texture(config, shift_mm={1: (0.0, 6.0)}), cam))
    code, out = run(["--config", str(cfg_path), "board", "--image", str(tmp_path / "frame.png")])
    assert code == 1
    assert "PROBLEM: the grid lines are" in out and "board check FAILED" in out


# ----------------------------------------------------------------------------- gantry, with the simulator

TRUE = GantryTransform(origin=(173.0, 36.5), rotation_deg=1.0, scale=(1.0, 1.0))


def test_gantry_command_with_simulated_controller(tmp_path):
    from robot.layout import TableLayout
    from robot.simulator import GrblSimulator

    cfg_path = tmp_path / "config.toml"
    save_config(Config(), cfg_path)
    nominal = GantryTransform.from_config(Config().gantry)
    geo = BoardGeometry.from_config(Config())
    squares = ["b2", "j2", "j10", "b10", "f6"]
    script = ["# the technician's jogs, from where the nominal transform goes to the truth"]
    for name in squares:
        sq = (int(name[1:]) - 1) * 11 + ord(name[0]) - ord("a")
        c = geo.square_center(sq)
        (tx, ty), (nx, ny) = TRUE.to_machine(*c), nominal.to_machine(*c)
        script += [f"jog {round(tx - nx, 1)} 0", f"jog 0 {round(ty - ny, 1)}", "ok"]
    mounted = Config()
    mounted.gantry.board_origin_mm = TRUE.origin
    mounted.gantry.rotation_deg = TRUE.rotation_deg
    with GrblSimulator(mounted, speed_factor=40.0, layout=TableLayout(mounted)) as sim:
        code, out = run(["--config", str(cfg_path), "gantry", "--port", sim.port, "--feed", "6000",
                         "--squares", ",".join(squares), "--save"], "\n".join(script) + "\n")
    assert code == 0, out
    assert "homed at (2.00, 2.00)" in out          # stock GRBL 1.1h: the $27 pull-off off the switch
    assert "every storage slot and the whole board are inside the travel" in out
    saved = load_config(cfg_path)
    fitted = GantryTransform.from_config(saved.gantry)
    for sq in range(121):
        c = geo.square_center(sq)
        assert np.hypot(*np.subtract(fitted.to_machine(*c), TRUE.to_machine(*c))) < 0.2
    assert Path(str(cfg_path) + ".bak").exists()
    assert load_config(str(cfg_path) + ".bak") == Config()


def test_gantry_quit_saves_nothing(tmp_path):
    from robot.simulator import GrblSimulator

    cfg_path = tmp_path / "config.toml"
    save_config(Config(), cfg_path)
    before = cfg_path.read_bytes()
    with GrblSimulator(Config(), speed_factor=40.0) as sim:
        code, out = run(["--config", str(cfg_path), "gantry", "--port", sim.port, "--feed", "6000",
                         "--save"], "jog 1 1\nbogus\nquit\n")
    assert code == 1
    assert "unknown command 'bogus'" in out and "quit: nothing saved" in out
    assert cfg_path.read_bytes() == before
    assert not Path(str(cfg_path) + ".bak").exists()


# ----------------------------------------------------------------------------- check

def test_check_passes_with_good_frame_and_answering_gantry(tmp_path):
    from robot.simulator import GrblSimulator

    cam = make_camera(CENTRE, 700.0, 12.0, 200.0, 80.0)
    config = calibrated_config(cam)
    cfg_path = tmp_path / "config.toml"
    save_config(config, cfg_path)
    cv2.imwrite(str(tmp_path / "frame.png"), render(board_texture(config), cam))
    with GrblSimulator(config, speed_factor=40.0) as sim:
        code, out = run(["--config", str(cfg_path), "check", "--image", str(tmp_path / "frame.png"),
                         "--port", sim.port])
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[-1].startswith("self-check PASSED")
    for name in ("config", "lens", "markers", "board", "storage", "gantry", "gantry travel"):
        assert any(line.startswith("PASS") and f"  {name}:" in line for line in lines), (name, out)


def test_check_fails_on_covered_marker_and_storage_outside_travel(tmp_path):
    cam = make_camera(CENTRE, 700.0, 12.0, 200.0, 80.0)
    config = calibrated_config(cam)
    cfg_path = tmp_path / "config.toml"
    save_config(config, cfg_path)
    cv2.imwrite(str(tmp_path / "frame.png"), render(board_texture(config, hidden=(1,)), cam))
    code, out = run(["--config", str(cfg_path), "check", "--image", str(tmp_path / "frame.png"),
                     "--port", str(tmp_path / "no-such-port")])
    assert code == 1
    assert "FAIL  markers: missing marker ids [1]" in out
    assert "PASS  storage: " in out
    assert "SKIP  gantry: no controller at" in out
    assert out.strip().splitlines()[-1].startswith("self-check FAILED")
    # storage outside the travel is refused when the file is read, before any check runs
    config.gantry.board_origin_mm = (260.0, 40.0)      # defenders' outer column beyond x = 800
    cfg_path.write_text(config_to_toml(config))
    assert run(["--config", str(cfg_path), "check", "--no-camera", "--no-gantry"])[0] == 1


def test_check_with_bad_config_fails_with_its_message(tmp_path, capsys):
    cfg_path = tmp_path / "config.toml"
    cfg_path.write_text("[camera]\nfps = 0\n")
    assert run(["--config", str(cfg_path), "check", "--no-camera", "--no-gantry"])[0] == 1
    assert "camera.fps: expected a value in [1, 1000], got 0 (an integer)" in capsys.readouterr().err


# ----------------------------------------------------------------------------- camera

def test_camera_command_from_a_folder_saves_intrinsics(tmp_path):
    from calibration.lens import CharucoSpec
    from calibration.printables import charuco_sheet

    sheet = charuco_sheet(CharucoSpec(), dpi=4 * 25.4)
    true_k = np.array([[860.0, 0, 645.0], [0, 860.0, 355.0], [0, 0, 1]])
    true_d = np.array([-0.1, 0.03, 0.0, 0.0, 0.0])
    rng = np.random.default_rng(8)
    views = tmp_path / "views"
    views.mkdir()
    for k in range(12):
        target = (148.5 + rng.uniform(-150, 150), 105.0 + rng.uniform(-100, 100))
        cam = make_camera(target, rng.uniform(380, 520), rng.uniform(5, 35), rng.uniform(0, 360),
                          rng.uniform(-180, 180), f_px=860.0, dist=true_d)
        cam.K = true_k
        cv2.imwrite(str(views / f"view{k:02}.png"), render(sheet, cam))
    (views / "notes.txt").write_text("not an image: ignored")
    cfg_path = tmp_path / "config.toml"
    save_config(Config(), cfg_path)
    code, out = run(["--config", str(cfg_path), "camera", "--source", str(views)])
    assert code == 0, out
    rms = float(re.search(r"reprojection error ([\d.]+) px", out).group(1))
    assert rms < 0.5
    saved = load_config(cfg_path).camera
    assert saved.camera_matrix[0][0] == pytest.approx(860.0, rel=0.02)
    assert len(saved.distortion) == 5 and saved.distortion[0] == pytest.approx(-0.1, abs=0.03)
    assert saved.calibration_size == (1280, 720)
    assert load_config(str(cfg_path) + ".bak") == Config()


def test_camera_command_with_too_few_views_saves_nothing(tmp_path, capsys):
    views = tmp_path / "views"
    views.mkdir()
    cv2.imwrite(str(views / "blank.png"), np.full((720, 1280), 200, np.uint8))
    cfg_path = tmp_path / "config.toml"
    save_config(Config(), cfg_path)
    before = cfg_path.read_bytes()
    assert run(["--config", str(cfg_path), "camera", "--source", str(views)])[0] == 1
    assert "need at least 4 different views of the ChArUco sheet, have 0 (looked at 1 frames)" in \
        capsys.readouterr().err
    assert cfg_path.read_bytes() == before


def test_camera_command_from_a_video_file(tmp_path):
    from calibration.lens import CharucoSpec
    from calibration.printables import charuco_sheet

    sheet = charuco_sheet(CharucoSpec(), dpi=4 * 25.4)
    true_k = np.array([[860.0, 0, 640.0], [0, 860.0, 360.0], [0, 0, 1]])
    rng = np.random.default_rng(21)
    video = tmp_path / "sheet.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (1280, 720))
    assert writer.isOpened()
    for _ in range(10):
        target = (148.5 + rng.uniform(-150, 150), 105.0 + rng.uniform(-100, 100))
        cam = make_camera(target, rng.uniform(380, 520), rng.uniform(5, 35), rng.uniform(0, 360),
                          rng.uniform(-180, 180), f_px=860.0)
        cam.K = true_k
        frame = render(sheet, cam)
        for _ in range(2):                                   # each pose held for two frames
            writer.write(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    writer.release()
    code, out = run(["camera", "--source", str(video), "--every", "1", "--dry-run"])
    assert code == 0, out
    assert "views of 1280x720" in out and out.strip().endswith("not saved")
    assert 8 <= int(re.search(r"(\d+) views of", out).group(1)) <= 10    # repeated frames are not new views
    fx = float(re.search(r"fx ([\d.]+)", out).group(1))
    assert fx == pytest.approx(860.0, rel=0.03)


def test_keyboard_jogging_reads_keys_from_a_terminal(capsys):
    import os
    import pty
    import termios

    from calibration.cli import TerminalKeys

    master, slave = pty.openpty()
    try:
        before = termios.tcgetattr(slave)
        with os.fdopen(slave, "r", closefd=False) as terminal:
            assert terminal.isatty()
            with TerminalKeys(terminal) as keys:
                os.write(master, b"\x1b[C3w1\x1b[Da\nxq")
                commands = iter(keys)
                got = [next(commands) for _ in range(7)]
        assert termios.tcgetattr(slave) == before          # the terminal is left as it was found
    finally:
        os.close(master)
        os.close(slave)
    assert got == [("jog", 1.0, 0.0), ("jog", 0.0, 10.0), ("jog", -0.1, 0.0), ("jog", -0.1, 0.0),
                   ("ok", 0.0, 0.0), ("skip", 0.0, 0.0), ("quit", 0.0, 0.0)]
    assert "step 10 mm" in capsys.readouterr().out


def test_gantry_refuses_bad_squares_before_touching_the_port(tmp_path, capsys):
    code, _ = run(["gantry", "--port", str(tmp_path / "no-port"), "--squares", "b2,z99,c3"])
    assert code == 1
    assert capsys.readouterr().err.startswith("tafl-calibrate: --squares: ")
    code, _ = run(["gantry", "--port", str(tmp_path / "no-port"), "--squares", "b2,c3"])
    assert "at least 3 reference squares" in capsys.readouterr().err
    code, _ = run(["gantry", "--port", str(tmp_path / "no-port")])
    assert code == 1
    assert "cannot open gantry port" in capsys.readouterr().err
