"""Labelled frames from the renderer, for fitting the square model and for the benchmark.

Positions are drawn at random (any number of pieces on any squares, the king
usually present) rather than from real games, so the model sees pieces next
to the throne, on marked squares, on the edge and in crowds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from calibration.config import Config
from vision.renderer import Rendered, render_frame

BOARD_SIZES = {"board-11": 11, "board-9": 9}


def random_position(rng: np.random.Generator, size: int) -> dict[int, str]:
    squares = size * size
    n_att = int(rng.integers(0, 2 * size + 3))
    n_def = int(rng.integers(0, size + 2))
    king = rng.random() < 0.9
    chosen = rng.choice(squares, n_att + n_def + int(king), replace=False)
    pieces = {int(sq): "t" for sq in chosen[:n_att]}
    pieces.update({int(sq): "T" for sq in chosen[n_att:n_att + n_def]})
    if king:
        # a third of the time on the throne, where every game starts him
        throne = squares // 2
        king_sq = throne if rng.random() < 0.3 else int(chosen[-1])
        pieces.pop(king_sq, None)
        pieces[king_sq] = "K"
    return pieces


@dataclass
class LabelledFrame:
    board: str
    rendered: Rendered


def labelled_frames(seeds: range, conditions: tuple[str, ...], boards: tuple[str, ...] = ("board-11", "board-9"),
                    config: Config | None = None) -> Iterator[LabelledFrame]:
    """One rendered frame per seed, cycling through boards and conditions."""
    config = config or Config()
    for i, seed in enumerate(seeds):
        board = boards[i % len(boards)]
        condition = conditions[(i // len(boards)) % len(conditions)]
        rng = np.random.default_rng(seed + 7_000_003)
        pieces = random_position(rng, BOARD_SIZES[board])
        yield LabelledFrame(board, render_frame(pieces, board, seed=seed, condition=condition, config=config))
