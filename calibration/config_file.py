"""The configuration file: load and validate TOML, write it back atomically.

A technician edits this file by hand, so loading reports *every* problem at
once, each as one line naming the file, the dotted key, what was expected and
what was found. Validation is generic over the dataclasses of
calibration/config.py (their type hints are the schema), plus a small table of
ranges and a few cross-field checks, so a new field needs no new code here
unless it has a range.

Rules of the file:
- every key is optional: a missing key takes its built-in default;
- an unknown key is an error (a typo must not silently fall back to a default);
- a table of named entries (``[boards.board-11]``, ``[engine.levels.hard]``) is
  merged into the defaults: an entry named like a default inherits that
  default's fields it does not set, a new entry must set every required field.

Saving writes a temporary file in the same directory, fsyncs it, keeps the
previous file as ``<name>.bak`` and renames the new file into place, so a
power cut leaves either the old or the new file, never half of one.
"""
from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import os
import re
import tomllib
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from calibration import config as config_module
from calibration.config import DEFAULT_CONFIG_PATH, Config
from calibration.durable import atomic_write_text

PathLike = str | os.PathLike


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a configuration."""

    file: str
    key: str          # dotted, e.g. "gantry.travel_mm[1]"; "" for the whole file
    expected: str
    got: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: expected {self.expected}, got {self.got}"


class ConfigError(ValueError):
    """A configuration that cannot be used; ``problems`` lists every reason."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


# --------------------------------------------------------------------------- describing values

def _describe(value: Any) -> str:
    """How a TOML value looks to the person who wrote it."""
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, int):
        return f"{value} (an integer)"
    if isinstance(value, float):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        return f"{value!r} (a string)"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        text = repr(list(value))
        if len(text) > 60:
            text = text[:57] + "..."
        return f"{text} (an array of {len(value)})"
    return f"{value!r} ({type(value).__name__})"


def _plural(tp: Any) -> str:
    names = {int: "integers", float: "numbers", str: "strings", bool: "booleans"}
    if tp in names:
        return names[tp]
    if dataclasses.is_dataclass(tp):
        return "tables"
    return "arrays"


def _expected_name(tp: Any) -> str:
    if tp is bool:
        return "true or false"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if dataclasses.is_dataclass(tp):
        return "a table"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"an array of {_plural(args[0])}"
        if len(set(args)) == 1:
            return f"an array of {len(args)} {_plural(args[0])}"
        return f"an array of {len(args)} values"
    if origin is list:
        return f"an array of {_plural(args[0])}"
    if origin is dict:
        return "a table"
    return str(tp)


# --------------------------------------------------------------------------- ranges and checks

Check = Callable[[Any], "str | None"]   # returns what was expected when the value is wrong


def _range(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
           hi_open: bool = False) -> Check:
    """A number within bounds; on a tuple or list, every element."""
    def text() -> str:
        if lo is not None and hi is not None:
            left = "(" if lo_open else "["
            right = ")" if hi_open else "]"
            return f"a value in {left}{lo:g}, {hi:g}{right}"
        if lo is not None:
            return f"a value {'>' if lo_open else '>='} {lo:g}"
        return f"a value {'<' if hi_open else '<='} {hi:g}"

    def check(value: Any) -> str | None:
        values = value if isinstance(value, (tuple, list)) else (value,)
        for v in values:
            if lo is not None and (v <= lo if lo_open else v < lo):
                return text()
            if hi is not None and (v >= hi if hi_open else v > hi):
                return text()
        return None
    return check


def _non_empty(value: Any) -> str | None:
    if isinstance(value, str):
        return "a non-empty string" if not value.strip() else None
    if any(isinstance(v, str) and not v.strip() for v in value):
        return "non-empty strings"
    return "at least one entry" if len(value) == 0 else None


def _odd_board(value: int) -> str | None:
    return None if 5 <= value <= 25 and value % 2 == 1 else "an odd number of squares from 5 to 25"


# Dictionary name -> number of markers in it (cv2.aruco's predefined dictionaries;
# listed here so loading the config does not need OpenCV).
ARUCO_DICTIONARIES: dict[str, int] = {
    **{f"DICT_{n}X{n}_{k}": k for n in (4, 5, 6, 7) for k in (50, 100, 250, 1000)},
    "DICT_ARUCO_ORIGINAL": 1024,
    "DICT_APRILTAG_16h5": 30, "DICT_APRILTAG_25h9": 35,
    "DICT_APRILTAG_36h10": 2320, "DICT_APRILTAG_36h11": 587,
    "DICT_ARUCO_MIP_36h12": 250,
}


def _dictionary(value: str) -> str | None:
    if value in ARUCO_DICTIONARIES:
        return None
    return "an ArUco dictionary name such as DICT_4X4_50"


_PIN_HASH = re.compile(r"^pbkdf2_sha256\$([1-9][0-9]{0,9})\$[^$]+\$[0-9a-fA-F]+$")
#: PBKDF2 iterations a staff PIN hash may use: fewer make a stolen config file's PIN
#: quick to find; more make every check (on the kiosk's small computer) too slow
PIN_ITERATIONS = (10_000, 2_000_000)
#: the shortest reward secret: the installer writes 64 hex digits
MIN_REWARD_SECRET = 16


def _pin_hash(value: str) -> str | None:
    if value == "":
        return None
    m = _PIN_HASH.match(value)
    if m and PIN_ITERATIONS[0] <= int(m.group(1)) <= PIN_ITERATIONS[1]:
        return None
    return (f"'' (staff mode off) or 'pbkdf2_sha256$iterations$salt$hexhash' with "
            f"{PIN_ITERATIONS[0]:,} to {PIN_ITERATIONS[1]:,} iterations")


def _reward_secret(value: str) -> str | None:
    if value == "" or len(value) >= MIN_REWARD_SECRET:
        return None
    return f"'' (reward codes off) or a secret of at least {MIN_REWARD_SECRET} characters"


# What a G-code line for GRBL is made of (words, numbers, comments). Anything else is
# refused: GRBL acts on ?, !, ~ and Ctrl-X the moment they arrive, wherever they stand
# in a line (status report, feed hold, cycle start, soft reset), '$' starts a system
# command, and a newline would make two lines of one command.
_GCODE_LINE = re.compile(r"[A-Za-z0-9 .+\-();]{1,70}")


def _gcode_line(value: str) -> str | None:
    if _GCODE_LINE.fullmatch(value):
        return None
    return ("one G-code line of at most 70 letters, digits, spaces and . + - ( ) ; "
            "(no ?, !, ~, $, control characters or newline)")


def _distortion(value: list[float]) -> str | None:
    if len(value) in (0, 4, 5, 8, 12, 14):
        return None
    return "0 (not calibrated), 4, 5, 8, 12 or 14 coefficients"


def _camera_matrix(value: list[list[float]]) -> str | None:
    if not value:
        return None
    bad = "[] (not calibrated) or a 3x3 matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0"
    if len(value) != 3 or any(len(row) != 3 for row in value):
        return bad
    if value[0][0] <= 0 or value[1][1] <= 0 or value[2] != [0.0, 0.0, 1.0] or value[1][0] != 0:
        return bad
    return None


def _calibration_size(value: tuple[int, int]) -> str | None:
    if value == (0, 0) or all(16 <= v <= 16384 for v in value):
        return None
    return "[0, 0] (unknown) or a frame size [width, height] in pixels"


_RGB = _range(0, 255)
_POSITIVE = _range(0, lo_open=True)

# "ClassName.field" -> checks. The ranges are generous: they catch typos and
# wrong units (metres for millimetres), not hardware choices.
RANGES: dict[str, tuple[Check, ...]] = {
    "Config.board": (_non_empty,),
    "BoardSpec.squares": (_odd_board,),
    "BoardSpec.pitch_mm": (_range(10, 200),),
    "BoardSpec.line_width_mm": (_range(0, 10),),
    "BoardSpec.wood_rgb": (_RGB,),
    "BoardSpec.line_rgb": (_RGB,),
    "BoardSpec.marked_rgb": (_RGB,),
    "MarkerConfig.dictionary": (_dictionary,),
    "MarkerConfig.size_mm": (_range(5, 200),),
    "MarkerConfig.offset_mm": (_range(0, 500, lo_open=True),),
    "MarkerConfig.quiet_zone_mm": (_range(0, 100),),
    "PieceConfig.attacker_diameter_mm": (_range(1, 100),),
    "PieceConfig.defender_diameter_mm": (_range(1, 100),),
    "PieceConfig.king_diameter_mm": (_range(1, 100),),
    "PieceConfig.height_mm": (_range(1, 100),),
    "PieceConfig.king_extra_height_mm": (_range(0, 50),),
    "PieceConfig.attacker_rgb": (_RGB,),
    "PieceConfig.defender_rgb": (_RGB,),
    "PieceConfig.crown_rgb": (_RGB,),
    "StorageConfig.attacker_columns_x_mm": (_non_empty, _range(hi=0, hi_open=True)),
    "StorageConfig.defender_columns_offset_mm": (_non_empty, _range(0, lo_open=True)),
    "StorageConfig.slot_pitch_mm": (_range(5, 200),),
    "StorageConfig.first_slot_y_mm": (_range(-1000, 1000),),
    "GantryConfig.port": (_non_empty,),
    "GantryConfig.baudrate": (_range(1200, 4_000_000),),
    "GantryConfig.travel_mm": (_range(10, 5000),),
    "GantryConfig.board_origin_mm": (_range(-5000, 5000),),
    "GantryConfig.rotation_deg": (_range(-180, 180),),
    "GantryConfig.scale": (_range(0.5, 2.0),),
    "GantryConfig.magnet_on": (_non_empty, _gcode_line),
    "GantryConfig.magnet_off": (_non_empty, _gcode_line),
    "GantryConfig.magnet_dwell_s": (_range(0, 10),),
    "GantryConfig.drag_feed_mm_min": (_range(10, 100_000),),
    "GantryConfig.response_timeout_s": (_range(0.1, 600),),
    "GantryConfig.motion_timeout_s": (_range(1, 3600),),
    "CameraConfig.device": (_non_empty,),
    "CameraConfig.width": (_range(16, 16384),),
    "CameraConfig.height": (_range(16, 16384),),
    "CameraConfig.fps": (_range(1, 1000),),
    "CameraConfig.distance_mm": (_range(50, 5000),),
    "CameraConfig.stable_s": (_range(0, 30),),
    "EngineConfig.ponder_max_s": (_range(0, 3600, lo_open=True),),
    "CameraConfig.camera_matrix": (_camera_matrix,),
    "CameraConfig.distortion": (_distortion,),
    "CameraConfig.calibration_size": (_calibration_size,),
    "LevelConfig.time_s": (_range(0, 3600, lo_open=True),),
    "LevelConfig.max_depth": (_range(1, 256),),
    "LevelConfig.noise": (_range(0, 1e9),),
    "EngineConfig.default_level": (_non_empty,),
    "KioskConfig.language": (_non_empty,),
    "KioskConfig.languages": (_non_empty,),
    "KioskConfig.idle_timeout_s": (_range(5, 86400),),
    "KioskConfig.attendance_warn_s": (_range(5, 86400),),
    "KioskConfig.attendance_pause_s": (_range(5, 86400),),
    "KioskConfig.staff_call_s": (_range(5, 86400),),
    "KioskConfig.screen_size": (_range(100, 16384),),
    "KioskConfig.staff_pin_hash": (_pin_hash,),
    "KioskConfig.reward_secret": (_reward_secret,),
    "KioskConfig.reward_valid_days": (_range(1, 3650),),
    "KioskConfig.variants": (_non_empty,),
    "KioskConfig.state_dir": (_non_empty,),
}


def _known_variants() -> dict[str, int] | None:
    """The engine's variant names and board sizes, or None while the engine cannot be imported."""
    try:
        from engine import VARIANTS

        return {name: int(spec.size) for name, spec in VARIANTS.items()}
    except Exception:   # noqa: BLE001 - the engine may be absent or broken here
        return None


def _cross_checks(cfg: Config) -> list[tuple[str, str, str]]:
    """Checks between fields: (key, expected, got)."""
    out: list[tuple[str, str, str]] = []
    if cfg.board not in cfg.boards:
        out.append(("board", f"one of the [boards] entries ({', '.join(sorted(cfg.boards))})",
                    _describe(cfg.board)))
    if cfg.engine.default_level not in cfg.engine.levels:
        out.append(("engine.default_level",
                    f"one of the [engine.levels] entries ({', '.join(sorted(cfg.engine.levels))})",
                    _describe(cfg.engine.default_level)))
    if cfg.kiosk.language not in cfg.kiosk.languages:
        out.append(("kiosk.language", f"one of kiosk.languages ({', '.join(cfg.kiosk.languages)})",
                    _describe(cfg.kiosk.language)))
    m = cfg.markers
    if len(set(m.ids)) != len(m.ids):
        out.append(("markers.ids", "four different marker ids", _describe(list(m.ids))))
    size = ARUCO_DICTIONARIES.get(m.dictionary)
    if size is not None and any(not 0 <= i < size for i in m.ids):
        out.append(("markers.ids", f"ids from 0 to {size - 1} (the size of {m.dictionary})",
                    _describe(list(m.ids))))
    if m.offset_mm < m.size_mm / 2:
        out.append(("markers.offset_mm",
                    f"at least half of markers.size_mm ({m.size_mm / 2:g}), so the markers stay "
                    "off the playing area", _describe(m.offset_mm)))
    variants = _known_variants()
    if variants is not None:
        for i, name in enumerate(cfg.kiosk.variants):
            if name not in variants:
                out.append((f"kiosk.variants[{i}]", f"one of {', '.join(variants)}", _describe(name)))
        installed = cfg.boards.get(cfg.board)
        if installed is not None and all(n in variants for n in cfg.kiosk.variants) and not any(
                variants[n] == installed.squares for n in cfg.kiosk.variants):
            fitting = [n for n, size in variants.items() if size == installed.squares]
            out.append(("kiosk.variants", f"at least one variant played on the installed {cfg.board} "
                        f"({installed.squares}x{installed.squares}: {', '.join(fitting) or 'none'})",
                        _describe(list(cfg.kiosk.variants))))
    g = cfg.gantry
    if g.magnet_on.strip().upper() == g.magnet_off.strip().upper():
        out.append(("gantry.magnet_off", "a command other than gantry.magnet_on (the magnet must go off)",
                    _describe(g.magnet_off)))
    out += _travel_checks(cfg)
    for name in cfg.engine.levels:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            out.append((f"engine.levels.{name}", "a level name of letters, digits, '-' and '_'",
                        _describe(name)))
    for name in cfg.boards:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            out.append((f"boards.{name}", "a board name of letters, digits, '-' and '_'",
                        _describe(name)))
    return out


def _travel_checks(cfg: Config) -> list[tuple[str, str, str]]:
    """Every board's corners and storage slots lie inside the gantry's travel (calibration/gantry.py)."""
    from calibration.gantry import check_soft_limits, storage_slot_counts
    from calibration.geometry import BoardGeometry, GantryTransform

    out: list[tuple[str, str, str]] = []
    transform = GantryTransform.from_config(cfg.gantry)
    tx, ty = cfg.gantry.travel_mm
    for name in cfg.boards:
        try:
            counts = storage_slot_counts(cfg, name)
        except Exception:   # noqa: BLE001 - no variant on this board: kiosk.variants reports it
            counts = {}
        for problem in check_soft_limits(BoardGeometry.from_config(cfg, name), transform,
                                         cfg.gantry.travel_mm, counts)[:1]:
            # the origin places the board and its storage on the machine; [storage] and
            # gantry.travel_mm are the other keys the message names
            out.append(("gantry.board_origin_mm", f"the {problem.what} of {name} inside the gantry travel (0..{tx:g} x 0..{ty:g} mm, "
                        "gantry.travel_mm) with this origin and [storage]",
                        f"machine ({problem.machine_mm[0]:.0f}, {problem.machine_mm[1]:.0f}) mm"))
    return out


# --------------------------------------------------------------------------- the generic walker

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls, vars(config_module))
    return _HINTS[cls]


def _field_default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return copy.deepcopy(f.default)
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


class _Validator:
    """Turns a parsed TOML table into a Config, collecting every problem."""

    _BAD = object()   # marks a value that could not be converted

    def __init__(self, file: str):
        self.file = file
        self.problems: list[Problem] = []

    def problem(self, key: str, expected: str, got: str) -> None:
        self.problems.append(Problem(self.file, key, expected, got))

    def dataclass_from(self, cls: type, table: Any, key: str, base: Any = None) -> Any:
        """Build ``cls`` from a table; fields the table lacks come from ``base`` or the defaults."""
        if not isinstance(table, dict):
            self.problem(key, "a table", _describe(table))
            return self._BAD
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for name in table:
            if name not in fields:
                close = difflib.get_close_matches(str(name), list(fields), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.problem(_join(key, str(name)), f"one of the known keys{hint}", "an unknown key")
        # A wrong value is reported and replaced by its default, so that the
        # cross-field checks can still run on the rest and every problem is
        # reported in one go; only a required key without a value sinks the record.
        hints = _hints(cls)
        values: dict[str, Any] = {}
        ok = True
        for name, f in fields.items():
            fkey = _join(key, name)
            default = getattr(base, name) if base is not None else _field_default(f)
            if name in table:
                value = self.convert(table[name], hints[name], fkey, default)
            elif default is dataclasses.MISSING:
                self.problem(fkey, f"{_expected_name(hints[name])} (this key is required)",
                             "nothing")
                value = self._BAD
            else:
                value = copy.deepcopy(default)
            for check in RANGES.get(f"{cls.__name__}.{name}", ()) if value is not self._BAD else ():
                expected = check(value)
                if expected is not None:
                    self.problem(fkey, expected, _describe(value))
                    value = self._BAD
                    break
            if value is self._BAD:
                if default is dataclasses.MISSING:
                    ok = False
                    continue
                value = copy.deepcopy(default)
            values[name] = value
        return cls(**values) if ok else self._BAD

    def convert(self, value: Any, tp: Any, key: str, default: Any = dataclasses.MISSING) -> Any:
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            base = default if dataclasses.is_dataclass(default) else None
            return self.dataclass_from(tp, value, key, base)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in (typing.Union, types.UnionType):
            raise TypeError(f"config schema: unions are not supported ({key})")
        if origin is dict:
            return self._dict(value, args, key, default)
        if origin in (tuple, list):
            return self._sequence(value, tp, origin, args, key)
        return self._scalar(value, tp, key)

    def _dict(self, value: Any, args: tuple, key: str, default: Any) -> Any:
        if not isinstance(value, dict):
            self.problem(key, "a table", _describe(value))
            return self._BAD
        _, item_tp = args
        result = dict(default) if isinstance(default, dict) else {}
        for name, item in value.items():
            base = result.get(name)
            converted = self.convert(item, item_tp, _join(key, name),
                                     base if base is not None else dataclasses.MISSING)
            if converted is not self._BAD:       # a broken new entry is left out (and reported)
                result[name] = converted
        return result

    def _sequence(self, value: Any, tp: Any, origin: type, args: tuple, key: str) -> Any:
        if not isinstance(value, list):
            self.problem(key, _expected_name(tp), _describe(value))
            return self._BAD
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                self.problem(key, _expected_name(tp), _describe(value))
                return self._BAD
            item_types = list(args)
        else:
            item_types = [args[0]] * len(value)
        items = []
        ok = True
        for i, (item, item_tp) in enumerate(zip(value, item_types)):
            converted = self.convert(item, item_tp, f"{key}[{i}]")
            ok = ok and converted is not self._BAD
            items.append(converted)
        if not ok:
            return self._BAD
        return tuple(items) if origin is tuple else items

    def _scalar(self, value: Any, tp: Any, key: str) -> Any:
        if tp is bool:
            if isinstance(value, bool):
                return value
        elif tp is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif tp is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if math.isfinite(value):
                    return float(value)
                self.problem(key, "a finite number", _describe(value))
                return self._BAD
        elif tp is str:
            if isinstance(value, str):
                return value
        else:
            raise TypeError(f"config schema: unsupported type {tp!r} at {key}")
        self.problem(key, _expected_name(tp), _describe(value))
        return self._BAD


def config_from_dict(data: dict[str, Any], file: str = "<config>") -> Config:
    """Validate a parsed TOML document into a Config; raises ConfigError with every problem."""
    validator = _Validator(file)
    cfg = validator.dataclass_from(Config, data, "")
    problems = list(validator.problems)
    # Cross-field checks on the best-effort config, except where they involve a
    # section that already has a problem (its stand-in default would mislead).
    broken = {_section_of(p.key) for p in problems}
    for key, expected, got in _cross_checks(cfg):
        if not _CROSS_SECTIONS.get(_section_of(key), {_section_of(key)}) & broken:
            problems.append(Problem(file, key, expected, got))
    if problems:
        raise ConfigError(problems)
    return cfg


def _section_of(key: str) -> str:
    return key.split(".")[0].split("[")[0]


# The sections each cross-field check reads, by the section its key is in.
_CROSS_SECTIONS: dict[str, set[str]] = {
    "board": {"board", "boards"},
    "kiosk": {"kiosk", "board", "boards"},
    "gantry": {"gantry", "boards", "storage"},
}


def load_config(path: PathLike | None = None) -> Config:
    """The validated configuration.

    ``None`` means DEFAULT_CONFIG_PATH when that file exists, else the built-in
    defaults (the reference hardware). A path given explicitly must exist.
    """
    if path is None:
        if not os.path.exists(DEFAULT_CONFIG_PATH):
            return Config()
        path = DEFAULT_CONFIG_PATH
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            text = fh.read().decode("utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError([Problem(name, "", "an existing config file", "no such file")]) from None
    except IsADirectoryError:
        raise ConfigError([Problem(name, "", "a config file", "a directory")]) from None
    except PermissionError:
        raise ConfigError([Problem(name, "", "a readable config file",
                                   "permission denied")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([Problem(name, "", "valid TOML", f"a syntax error: {exc}")]) from None
    except RecursionError:
        raise ConfigError([Problem(name, "", "valid TOML", "arrays or tables nested too deeply")]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError([Problem(name, "", "UTF-8 text",
                                   f"undecodable bytes at offset {exc.start}")]) from None
    except OSError as exc:
        raise ConfigError([Problem(name, "", "a readable config file",
                                   exc.strerror or str(exc))]) from None
    if text.startswith(HEADER) and END_LINE not in (line.strip() for line in text.splitlines()):
        raise ConfigError([Problem(name, "", f"the line {END_LINE!r} that tafl-calibrate writes last",
                                   f"a file cut short after line {len(text.splitlines())}")])
    return config_from_dict(data, name)


#: what a kiosk loses when it boots on the built-in defaults
DEFAULTS_LOSE = ("the calibration, the staff PIN (staff mode is off) and the reward secret "
                 "(no reward codes)")


def load_kiosk_config(path: PathLike | None = None) -> tuple[Config, str | None]:
    """The configuration for a booting kiosk: `load_config`, except that a missing or empty
    file is not fatal but gives the built-in defaults and a warning to show staff.

    WHY: the service restarts the kiosk forever; a config file lost or emptied by a
    power cut (a zero-length file after a crash is common on SD cards) must leave a
    working screen that says loudly what is missing, not a crash loop, and never a
    silent run without calibration, PIN hash and reward secret. A file with
    anything wrong in it is still refused with every problem named.
    """
    name = os.fspath(path) if path is not None else DEFAULT_CONFIG_PATH
    try:
        empty = os.path.isfile(name) and not Path(name).read_bytes().strip()
    except OSError:
        empty = False
    if not os.path.exists(name) or empty:
        what = "is empty" if empty else "does not exist"
        return Config(), f"{name}: the config file {what}: running on the built-in defaults, without {DEFAULTS_LOSE}"
    return load_config(name), None


# --------------------------------------------------------------------------- writing TOML

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)          # shortest text that reads back to the same float
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _is_table_type(tp: Any) -> bool:
    return dataclasses.is_dataclass(tp) or typing.get_origin(tp) is dict


def _comment(cls: type) -> str | None:
    doc = (cls.__doc__ or "").strip()
    if not doc or doc.startswith(cls.__name__ + "("):   # dataclass's generated docstring
        return None
    return doc.splitlines()[0]


def _emit(obj: Any, path: list[str], lines: list[str]) -> None:
    """Write the scalars of ``obj`` and then its sub-tables (TOML needs that order)."""
    hints = _hints(type(obj))
    fields = dataclasses.fields(obj)
    for f in fields:
        if not _is_table_type(hints[f.name]):
            lines.append(f"{_toml_key(f.name)} = {_toml_value(getattr(obj, f.name))}")
    for f in fields:
        tp, value = hints[f.name], getattr(obj, f.name)
        if dataclasses.is_dataclass(tp):
            _section(value, path + [f.name], lines)
        elif typing.get_origin(tp) is dict:
            for i, (name, item) in enumerate(value.items()):
                _section(item, path + [f.name, str(name)], lines, with_comment=i == 0)


def _section(obj: Any, path: list[str], lines: list[str], with_comment: bool = True) -> None:
    lines.append("")
    comment = _comment(type(obj)) if with_comment else None
    if comment:
        lines.append(f"# {comment}")
    lines.append("[" + ".".join(_toml_key(p) for p in path) + "]")
    _emit(obj, path, lines)


#: the first and last lines of a written config: a file that starts with HEADER but
#: lacks END_LINE was cut short (a power cut, a full disk) and is refused, not read in
#: part; keys a technician adds after END_LINE are read as usual
HEADER = "# tafl-kiosk configuration (written by tafl-calibrate; its last line says it ends)."
END_LINE = "# end of the tafl-kiosk configuration"


def config_to_toml(config: Config) -> str:
    """The configuration as TOML text that load_config reads back to an equal Config."""
    lines = [
        HEADER,
        "# Every key is optional: a missing key takes the reference hardware's default.",
        "# Check it with: tafl-calibrate config --check FILE",
        "",
    ]
    _emit(config, [], lines)
    return "\n".join(lines + ["", END_LINE]) + "\n"


# --------------------------------------------------------------------------- atomic save

def save_config(config: Config, path: PathLike) -> None:
    """Validate, then write ``config`` to ``path`` atomically, keeping the old file as .bak.

    An invalid config raises ConfigError before anything is written. The new
    file keeps the old file's permissions and (as root) its owner; a new file
    is created 0600 because it holds the staff PIN hash and the reward secret.
    """
    name = os.fspath(path)
    text = config_to_toml(config)
    config_from_dict(tomllib.loads(text), name)       # refuse to write what would not load
    directory = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(directory):
        raise ConfigError([Problem(name, "", "a file in an existing directory",
                                   f"no directory {directory}")])
    if os.path.isdir(name):
        raise ConfigError([Problem(name, "", "a config file", "a directory")])
    try:
        atomic_write_text(name, text, keep_owner=True, backup=backup_path(name))
    except PermissionError:
        raise ConfigError([Problem(name, "", f"a directory this user may write ({directory})",
                                   "permission denied")]) from None


def backup_path(path: PathLike) -> Path:
    """Where save_config keeps the previous version of ``path``."""
    return Path(os.fspath(path) + ".bak")
