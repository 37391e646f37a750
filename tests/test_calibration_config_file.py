"""The config file: every kind of bad file gives its clear message and changes nothing on disk."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from calibration.config import Config, LevelConfig
from calibration.config_file import (
    ConfigError,
    backup_path,
    config_to_toml,
    load_config,
    save_config,
)


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in a directory with its bytes and mtime, to prove nothing changed."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir())}


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def messages(exc: pytest.ExceptionInfo[ConfigError]) -> list[str]:
    return [str(p) for p in exc.value.problems]


# ----------------------------------------------------------------------------- good files

def test_defaults_round_trip_through_toml(tmp_path):
    path = tmp_path / "config.toml"
    save_config(Config(), path)
    assert load_config(path) == Config()


def test_changed_config_round_trips_exactly(tmp_path):
    cfg = Config()
    cfg.gantry.board_origin_mm = (171.25, 38.5)
    cfg.gantry.rotation_deg = -0.9731
    cfg.gantry.scale = (1.0021, 0.9987)
    cfg.camera.camera_matrix = [[912.5, 0.0, 640.1], [0.0, 911.0, 359.7], [0.0, 0.0, 1.0]]
    cfg.camera.distortion = [0.1, -0.2, 0.001, 0.0005, 0.03]
    cfg.kiosk.reward_secret = 'quote " backslash \\ tab \t é'
    cfg.engine.levels["expert"] = LevelConfig(time_s=8.0, max_depth=64, noise=0.0)
    path = tmp_path / "config.toml"
    save_config(cfg, path)
    assert load_config(path) == cfg


def test_missing_keys_take_defaults_and_named_entries_merge(tmp_path):
    path = write(tmp_path, """
board = "board-9"
[gantry]
travel_mm = [900, 600]
[boards.board-11]
pitch_mm = 42
[engine.levels.hard]
time_s = 6
""")
    cfg = load_config(path)
    assert cfg.board == "board-9"
    assert cfg.gantry.travel_mm == (900.0, 600.0)
    assert isinstance(cfg.gantry.travel_mm[0], float)
    assert cfg.gantry.port == Config().gantry.port
    assert cfg.boards["board-11"].pitch_mm == 42.0
    assert cfg.boards["board-11"].squares == 11            # inherited from the default entry
    assert cfg.engine.levels["hard"].time_s == 6.0
    assert cfg.engine.levels["hard"].max_depth == 64
    assert set(cfg.engine.levels) == {"easy", "medium", "hard"}


def test_none_means_default_path_or_builtin_defaults(tmp_path, monkeypatch):
    monkeypatch.setattr("calibration.config_file.DEFAULT_CONFIG_PATH", str(tmp_path / "absent.toml"))
    assert load_config(None) == Config()
    path = write(tmp_path, 'board = "board-9"\n', "present.toml")
    monkeypatch.setattr("calibration.config_file.DEFAULT_CONFIG_PATH", str(path))
    assert load_config(None).board == "board-9"


# ----------------------------------------------------------------------------- bad files

BAD_FILES = {
    "bad TOML": (
        '[gantry]\nport = "/dev/ttyUSB0\n',
        ["config.toml: expected valid TOML, got a syntax error: "],
    ),
    "wrong type": (
        '[gantry]\nbaudrate = "fast"\n',
        ["config.toml: gantry.baudrate: expected an integer, got 'fast' (a string)"],
    ),
    "wrong type in an array": (
        '[gantry]\ntravel_mm = [800, "560"]\n',
        ["config.toml: gantry.travel_mm[1]: expected a number, got '560' (a string)"],
    ),
    "wrong array length": (
        "[markers]\nids = [0, 1, 2]\n",
        ["config.toml: markers.ids: expected an array of 4 integers, got [0, 1, 2] (an array of 3)"],
    ),
    "boolean for a number": (
        "[camera]\nfps = true\n",
        ["config.toml: camera.fps: expected an integer, got true (a boolean)"],
    ),
    "out of range": (
        "[gantry]\nrotation_deg = 400\n",
        ["config.toml: gantry.rotation_deg: expected a value in [-180, 180], got 400.0 (a number)"],
    ),
    "out of range in an array": (
        "[boards.board-11]\nwood_rgb = [214, 300, 128]\n",
        ["config.toml: boards.board-11.wood_rgb: expected a value in [0, 255], got [214, 300, 128] (an array of 3)"],
    ),
    "unknown key": (
        "[gantry]\nscal = [1.0, 1.0]\n",
        ["config.toml: gantry.scal: expected one of the known keys (did you mean 'scale'?), got an unknown key"],
    ),
    "unknown section": (
        "[gantri]\nport = \"x\"\n",
        ["config.toml: gantri: expected one of the known keys (did you mean 'gantry'?), got an unknown key"],
    ),
    "section given as a value": (
        'gantry = "x"\n',
        ["config.toml: gantry: expected a table, got 'x' (a string)"],
    ),
    "new entry lacking a required key": (
        "[boards.board-13]\npitch_mm = 34\n",
        ["config.toml: boards.board-13.squares: expected an integer (this key is required), got nothing"],
    ),
    "selected board does not exist": (
        'board = "board-13"\n',
        ["config.toml: board: expected one of the [boards] entries (board-11, board-9), got 'board-13' (a string)"],
    ),
    "not a 3x3 camera matrix": (
        "[camera]\ncamera_matrix = [[900.0, 0.0, 640.0], [0.0, 900.0, 360.0]]\n",
        ["config.toml: camera.camera_matrix: expected [] (not calibrated) or a 3x3 matrix"],
    ),
    "not a number": (
        "[gantry]\nscale = [nan, 1.0]\n",
        ["config.toml: gantry.scale[0]: expected a finite number, got nan (a number)"],
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_config_gives_its_message_and_changes_nothing(tmp_path, kind):
    text, expected = BAD_FILES[kind]
    path = write(tmp_path, text)
    before = snapshot(tmp_path)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    got = messages(exc)
    assert len(got) == len(expected), got
    for line, start in zip(got, expected):
        assert line.startswith(str(tmp_path / start)), (line, start)
    assert "\n" not in got[0]
    assert snapshot(tmp_path) == before


def test_bad_toml_message_says_where(tmp_path):
    path = write(tmp_path, '[gantry]\nport = "/dev/ttyUSB0\n')
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert "line 2" in str(exc.value)


def test_missing_file_given_explicitly(tmp_path):
    before = snapshot(tmp_path)
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path / "nope.toml")
    assert messages(exc) == [f"{tmp_path / 'nope.toml'}: expected an existing config file, got no such file"]
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "nope.toml").exists()


def test_directory_given_as_file(tmp_path):
    with pytest.raises(ConfigError, match="expected a config file, got a directory"):
        load_config(tmp_path)


def test_every_problem_is_reported_at_once(tmp_path):
    path = write(tmp_path, """
[gantry]
baudrate = "fast"
rotation_deg = 400
scal = 1
[camera]
fps = 0
""")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    keys = sorted(p.key for p in exc.value.problems)
    assert keys == ["camera.fps", "gantry.baudrate", "gantry.rotation_deg", "gantry.scal"]
    assert all(p.file == str(path) for p in exc.value.problems)


def test_cross_field_checks(tmp_path):
    path = write(tmp_path, """
[markers]
ids = [0, 1, 1, 3]
[kiosk]
language = "de"
[engine]
default_level = "insane"
""")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    keys = sorted(p.key for p in exc.value.problems)
    assert keys == ["engine.default_level", "kiosk.language", "markers.ids"]


# ----------------------------------------------------------------------------- saving

def test_save_keeps_previous_file_as_backup(tmp_path):
    path = tmp_path / "config.toml"
    save_config(Config(), path)
    assert not backup_path(path).exists()
    first = path.read_bytes()
    cfg = Config()
    cfg.gantry.rotation_deg = 1.0
    save_config(cfg, path)
    assert backup_path(path).read_bytes() == first
    assert load_config(path).gantry.rotation_deg == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "config.toml.bak"]


def test_save_refuses_invalid_config_and_changes_nothing(tmp_path):
    path = tmp_path / "config.toml"
    save_config(Config(), path)
    before = snapshot(tmp_path)
    cfg = Config()
    cfg.gantry.scale = (3.0, 1.0)
    cfg.board = "board-99"
    with pytest.raises(ConfigError) as exc:
        save_config(cfg, path)
    assert [p.key for p in exc.value.problems] == ["gantry.scale", "board"]
    assert snapshot(tmp_path) == before


def test_save_keeps_file_mode_and_creates_private_file(tmp_path):
    path = tmp_path / "config.toml"
    save_config(Config(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o640)
    save_config(Config(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_save_into_missing_directory_fails_cleanly(tmp_path):
    with pytest.raises(ConfigError, match="expected a file in an existing directory"):
        save_config(Config(), tmp_path / "absent" / "config.toml")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_leaves_old_file_and_no_temporaries(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    save_config(Config(), path)
    before = snapshot(tmp_path)

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        save_config(Config(), path)
    assert snapshot(tmp_path) == before


def test_toml_text_is_sectioned_and_commented():
    text = config_to_toml(Config())
    assert text.index('board = "board-11"') < text.index("[boards.board-11]")
    assert text.index('default_level = "medium"') < text.index("[engine.levels.easy]")
    assert "[gantry]" in text and "# The XY gantry" in text


def test_variants_must_exist_and_one_must_fit_the_installed_board(tmp_path):
    path = write(tmp_path, 'board = "board-9"\n[kiosk]\nvariants = ["copenhagen", "chess"]\n')
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert messages(exc) == [f"{path}: kiosk.variants[1]: expected one of copenhagen, york, tablut, "
                             "tawlbwrdd, got 'chess' (a string)"]
    path = write(tmp_path, 'board = "board-9"\n[kiosk]\nvariants = ["copenhagen", "york"]\n')
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert messages(exc) == [f"{path}: kiosk.variants: expected at least one variant played on the "
                             "installed board-9 (9x9: tablut), got ['copenhagen', 'york'] (an array of 2)"]


def test_save_into_read_only_directory_is_a_clear_error(tmp_path, monkeypatch):
    # The tests may run as root, who may write anywhere: the refusal is simulated at its source.
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("calibration.durable.tempfile.mkstemp", refuse)
    with pytest.raises(ConfigError) as exc:
        save_config(Config(), tmp_path / "config.toml")
    assert messages(exc) == [f"{tmp_path / 'config.toml'}: expected a directory this user may write "
                             f"({tmp_path}), got permission denied"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file away")
def test_saving_as_root_keeps_the_owner(tmp_path):
    path = tmp_path / "config.toml"
    save_config(Config(), path)
    os.chown(path, 4321, 4322)
    os.chmod(path, 0o660)
    save_config(Config(), path)
    st = path.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o660)


def test_cross_field_problems_come_with_the_others_unless_they_depend_on_them(tmp_path):
    path = write(tmp_path, """
board = "board-13"
[gantry]
rotation_deg = 400
[engine]
default_level = "insane"
[engine.levels.hard]
time_s = -1
""")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    # board-13 is reported; default_level is not, as [engine] itself has a broken value
    assert [p.key for p in exc.value.problems] == ["gantry.rotation_deg", "engine.levels.hard.time_s", "board"]


# ----------------------------------------------------------------------------- harmful semantics

PIN_DIGEST = "0" * 64
HARMFUL = {
    "magnet_on equal to magnet_off": ('[gantry]\nmagnet_on = "M8"\nmagnet_off = "m8 "\n',
                                      "gantry.magnet_off", "other than gantry.magnet_on"),
    "magnet command with ?": ('[gantry]\nmagnet_on = "M8?"\n', "gantry.magnet_on", "no ?"),
    "magnet command with !": ('[gantry]\nmagnet_off = "M9!"\n', "gantry.magnet_off", "no ?"),
    "magnet command with ~": ('[gantry]\nmagnet_on = "~M8"\n', "gantry.magnet_on", "no ?"),
    "magnet command with Ctrl-X": ('[gantry]\nmagnet_on = "M8\\u0018"\n', "gantry.magnet_on", "control"),
    "magnet command with a newline": ('[gantry]\nmagnet_on = "M8\\nM3"\n', "gantry.magnet_on", "newline"),
    "magnet command with $": ('[gantry]\nmagnet_on = "$H"\n', "gantry.magnet_on", "$"),
    "board origin beyond the travel": ("[gantry]\nboard_origin_mm = [600.0, 40.0]\n",
                                       "gantry.board_origin_mm", "inside the gantry travel"),
    "board origin below zero": ("[gantry]\nboard_origin_mm = [170.0, -50.0]\n",
                                "gantry.board_origin_mm", "inside the gantry travel"),
    "storage beyond the travel": ("[storage]\nslot_pitch_mm = 100.0\n", "gantry.board_origin_mm", "slot"),
    "PIN hash with 1 iteration": (f'[kiosk]\nstaff_pin_hash = "pbkdf2_sha256$1$00ff${PIN_DIGEST}"\n',
                                  "kiosk.staff_pin_hash", "10,000 to 2,000,000 iterations"),
    "PIN hash with 10^12 iterations": (
        f'[kiosk]\nstaff_pin_hash = "pbkdf2_sha256$1000000000000$00ff${PIN_DIGEST}"\n',
        "kiosk.staff_pin_hash", "iterations"),
    "a 1-character reward secret": ('[kiosk]\nreward_secret = "x"\n', "kiosk.reward_secret", "at least 16"),
    "5,000 nested [": ("x = " + "[" * 5000 + "\n", "", "valid TOML"),
}


@pytest.mark.parametrize("case", sorted(HARMFUL))
def test_harmful_configs_are_refused_with_the_key_and_the_reason(tmp_path, case):
    text, key, words = HARMFUL[case]
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    found = [p for p in exc.value.problems if p.key == key]
    assert found and words in found[0].expected, messages(exc)


def test_sane_magnet_commands_pin_hash_and_secret_load(tmp_path):
    path = write(tmp_path, '[gantry]\nmagnet_on = "M3 S1000"\nmagnet_off = "M5 (off)"\n'
                 f'[kiosk]\nstaff_pin_hash = "pbkdf2_sha256$200000$00ff${PIN_DIGEST}"\n'
                 'reward_secret = "0123456789abcdef"\n')
    cfg = load_config(path)
    assert cfg.gantry.magnet_on == "M3 S1000" and cfg.kiosk.reward_secret == "0123456789abcdef"


@pytest.mark.parametrize("content", [None, b"", b"  \n\n"])
def test_a_kiosk_on_a_missing_or_empty_config_boots_on_defaults_with_a_loud_warning(tmp_path, content):
    from calibration.config_file import load_kiosk_config

    path = tmp_path / "config.toml"
    if content is not None:
        path.write_bytes(content)
    cfg, warning = load_kiosk_config(path)
    assert cfg == Config()
    assert warning is not None and str(path) in warning
    assert all(w in warning for w in ("calibration", "PIN", "reward secret"))
    assert ("empty" if content is not None else "does not exist") in warning


def test_a_kiosk_on_a_bad_config_is_still_refused_and_a_good_one_gives_no_warning(tmp_path):
    from calibration.config_file import load_kiosk_config

    with pytest.raises(ConfigError):
        load_kiosk_config(write(tmp_path, "[gantry]\nmagnet_on = 'M8?'\n"))
    cfg, warning = load_kiosk_config(write(tmp_path, "[kiosk]\nlanguage = 'sv'\n"))
    assert warning is None and cfg.kiosk.language == "sv"


def test_a_written_config_cut_short_is_refused_not_read_in_part(tmp_path):
    from calibration.config_file import END_LINE

    config = Config()
    config.kiosk.reward_secret = "0123456789abcdef0123"
    text = config_to_toml(config)
    assert text.rstrip().endswith(END_LINE)
    path = write(tmp_path, text[:len(text) // 2].rsplit("\n", 1)[0] + "\n")   # valid TOML, half the keys
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert "cut short" in messages(exc)[0]
    # what a technician adds after the end line is read as usual
    added = load_config(write(tmp_path, text + "\n# added by hand\n[boards.board-13]\nsquares = 13\npitch_mm = 35.0\n"))
    assert "board-13" in added.boards and added.kiosk.reward_secret == config.kiosk.reward_secret
    # a hand-written file without the header needs no end line
    assert load_config(write(tmp_path, "[kiosk]\nlanguage = 'sv'\n")).kiosk.language == "sv"
