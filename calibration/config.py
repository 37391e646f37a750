"""The kiosk's configuration: one record per section, defaults from the reference hardware.

Every figure of docs/hardware.md is a default here and nowhere else, so a
museum with other hardware edits its config file, not the code. Loading,
validation and atomic saving of the TOML file live in calibration/config_file.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_CONFIG_PATH = "/etc/tafl-kiosk/config.toml"


@dataclass
class BoardSpec:
    """One physical board: its squares, their pitch and how it is drawn."""

    squares: int
    pitch_mm: float
    line_width_mm: float = 1.5
    wood_rgb: tuple[int, int, int] = (214, 178, 128)
    line_rgb: tuple[int, int, int] = (60, 40, 25)
    marked_rgb: tuple[int, int, int] = (150, 105, 60)

    @property
    def width_mm(self) -> float:
        return self.squares * self.pitch_mm


def _default_boards() -> dict[str, BoardSpec]:
    return {
        "board-11": BoardSpec(squares=11, pitch_mm=40.0),
        "board-9": BoardSpec(squares=9, pitch_mm=48.0),
    }


@dataclass
class MarkerConfig:
    """The four ArUco markers on the frame around the playing area."""

    dictionary: str = "DICT_4X4_50"
    ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    size_mm: float = 30.0          # black side
    offset_mm: float = 30.0        # centre distance out from the playing area, both axes
    quiet_zone_mm: float = 6.0


@dataclass
class PieceConfig:
    """The pieces as seen from above; the planner keeps them this far apart."""

    attacker_diameter_mm: float = 18.0
    defender_diameter_mm: float = 18.0
    king_diameter_mm: float = 20.0
    height_mm: float = 10.0
    king_extra_height_mm: float = 3.0
    attacker_rgb: tuple[int, int, int] = (45, 30, 22)
    defender_rgb: tuple[int, int, int] = (235, 225, 200)
    crown_rgb: tuple[int, int, int] = (212, 175, 55)


@dataclass
class StorageConfig:
    """Parking slots for captured pieces, relative to the board frame.

    Attackers park left of the board (x = -80, -120), defenders right of it
    (x = W + 80, W + 120); slots every 40 mm along y from y = 20. The king has
    the first slot of the defenders' inner column.
    """

    attacker_columns_x_mm: tuple[float, ...] = (-80.0, -120.0)
    defender_columns_offset_mm: tuple[float, ...] = (80.0, 120.0)  # from the right edge W
    slot_pitch_mm: float = 40.0
    first_slot_y_mm: float = 20.0


@dataclass
class GantryConfig:
    """The XY gantry and its GRBL 1.1 controller."""

    port: str = "/dev/tafl-gantry"
    baudrate: int = 115200
    travel_mm: tuple[float, float] = (800.0, 560.0)
    board_origin_mm: tuple[float, float] = (170.0, 40.0)   # board frame origin in machine mm
    rotation_deg: float = 0.0                                # board frame to machine axes
    scale: tuple[float, float] = (1.0, 1.0)
    magnet_on: str = "M8"
    magnet_off: str = "M9"
    magnet_dwell_s: float = 0.2
    drag_feed_mm_min: float = 3000.0
    response_timeout_s: float = 5.0
    motion_timeout_s: float = 120.0
    home_on_start: bool = True


@dataclass
class CameraConfig:
    """The overhead UVC camera and how long the scene must be still."""

    device: str = "/dev/tafl-camera"     # a path, or an index such as "0"
    width: int = 1280
    height: int = 720
    fps: int = 30
    distance_mm: float = 700.0           # lens to board (600-800 mm); used only while uncalibrated
    stable_s: float = 0.3                # still time after the hand left before a reading counts (vision/stability.py; bench/confirm_latency.py)
    camera_matrix: list[list[float]] = field(default_factory=list)   # empty = not calibrated
    distortion: list[float] = field(default_factory=list)
    calibration_size: tuple[int, int] = (0, 0)   # frame size camera_matrix was measured at; (0, 0) = unknown


@dataclass
class LevelConfig:
    """One difficulty level; a museum may tune these."""

    time_s: float
    max_depth: int
    noise: float          # evaluation noise, in the evaluation's units
    blunder_guard: bool = True
    hints: int = -1       # hints a visitor may ask for per game (-1: as many as wanted; kiosk/teaching.py)


def _default_levels() -> dict[str, LevelConfig]:
    return {
        "easy": LevelConfig(time_s=0.5, max_depth=1, noise=40.0, hints=-1),
        "medium": LevelConfig(time_s=1.5, max_depth=2, noise=70.0, hints=3),  # why: engine/levels.py
        "hard": LevelConfig(time_s=4.0, max_depth=64, noise=0.0, hints=1),
    }


@dataclass
class EngineConfig:
    levels: dict[str, LevelConfig] = field(default_factory=_default_levels)
    default_level: str = "medium"
    ponder: bool = True                 # think on the visitor's time (levels deeper than 2 plies)
    ponder_max_s: float = 60.0          # and stop after this long if the visitor walked away


@dataclass
class KioskConfig:
    language: str = "en"
    languages: tuple[str, ...] = ("en", "sv")
    idle_timeout_s: float = 90.0        # menus only: a game is never ended by a timer
    # attendance on the visitor's turn (no touch, no hand over the board, no change on it):
    # warn after attendance_warn_s, pause the game to attract (position kept) after attendance_pause_s
    attendance_warn_s: float = 300.0
    attendance_pause_s: float = 480.0
    # waiting for a person to place or fix pieces this long: call staff (notice + WARNING log)
    staff_call_s: float = 120.0
    screen_size: tuple[int, int] = (1280, 800)
    fullscreen: bool = True
    staff_pin_hash: str = ""            # "pbkdf2_sha256$iterations$salt$hash"; empty = staff mode off
    reward_secret: str = ""             # signs reward codes; generated at install
    reward_valid_days: int = 365        # a reward code is honoured this many days after the win
    # the take-home game record (kiosk/record.py, docs/take-home.md): the museum's page the
    # QR code opens, this kiosk's name in the records it signs ("" = the host name), and the
    # public keys of the museum's other kiosks whose records this one honours when scanned
    record_url: str = "https://museum.example/tafl/"
    kiosk_id: str = ""
    record_keys: tuple[str, ...] = ()
    variants: tuple[str, ...] = ("copenhagen", "york", "tawlbwrdd", "tablut")
    state_dir: str = "/var/lib/tafl-kiosk"


@dataclass
class ExhibitConfig:
    """The exhibit modes (kiosk/exhibit.py): the robot playing itself in attract, the referee."""

    selfplay: bool = True               # nobody there: the robot plays itself on the board
    selfplay_after_s: float = 120.0     # idle this long (no touch, no hand, no game) before it starts
    selfplay_level: str = "easy"        # the level of both sides (short thinking)
    selfplay_variant: str = "copenhagen"
    selfplay_feed_mm_min: float = 1500.0    # the demo's drag speed (slower than a game's, to watch)
    selfplay_move_pause_s: float = 3.0  # between two self-play moves, time to read the narration
    selfplay_max_plies: int = 200       # a demo game that goes on longer ends (and the board resets)
    # no self-play in these local-time ranges, "HH:MM-HH:MM" (may wrap past midnight)
    quiet_hours: tuple[str, ...] = ()
    # the referee parks a capture left on the board once nothing moved for this long (no hand)
    referee_park_quiet_s: float = 2.0


@dataclass
class Config:
    """The whole configuration file."""

    board: str = "board-11"             # which board is installed
    boards: dict[str, BoardSpec] = field(default_factory=_default_boards)
    markers: MarkerConfig = field(default_factory=MarkerConfig)
    pieces: PieceConfig = field(default_factory=PieceConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    gantry: GantryConfig = field(default_factory=GantryConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    kiosk: KioskConfig = field(default_factory=KioskConfig)
    exhibit: ExhibitConfig = field(default_factory=ExhibitConfig)

    @property
    def board_spec(self) -> BoardSpec:
        return self.boards[self.board]
