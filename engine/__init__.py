"""The rules engine: the four rule sets, OTN notation, move generation, game end.

Pure Python, no I/O (only `engine.cli` touches stdin/stdout). The API is
modelled on python-chess; docs/architecture.md holds the contract and
docs/rules.md every rules decision.
"""
from .board import Board, perft
from .rules import VARIANTS, Rules, rules_for
from .types import Announcement, Move, Outcome, Piece, Side, parse_square, square_name

__all__ = [
    "Board", "Move", "Side", "Piece", "Outcome", "Announcement", "VARIANTS", "Rules",
    "square_name", "parse_square", "rules_for", "perft",
]
