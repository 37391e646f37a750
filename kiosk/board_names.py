"""Which configured board a variant is played on.

WHY: Tablut needs the 9x9 board, the others the 11x11 one; a museum installs
one board, and the simulation may swap boards freely. Both ask this one place.
"""
from __future__ import annotations

from calibration.config import Config
from engine import Board


def board_name_for(config: Config, variant: str) -> str:
    """The configured board whose size fits `variant` (the installed one if it fits)."""
    size = Board(variant).size
    if config.board_spec.squares == size:
        return config.board
    for name, spec in sorted(config.boards.items()):
        if spec.squares == size:
            return name
    raise ValueError(f"no board with {size}x{size} squares in the configuration for {variant!r}")


def installed_board_for(config: Config, variant: str) -> str:
    """The installed board, if `variant` is played on it; else a one-line ValueError.

    WHY: the robot cannot swap boards. A game for another board would wait for
    pieces the camera can never see, without calling anyone; it is refused
    at once instead, saying what a person must do."""
    name = board_name_for(config, variant)
    if name != config.board:
        size = Board(variant).size
        raise ValueError(f"{variant} is played on the {size}x{size} board ({name}), but the installed board is "
                         f"{config.board} ({config.board_spec.squares}x{config.board_spec.squares}): "
                         f"staff must swap the board and set board = \"{name}\" in the configuration")
    return name
