"""The self-play runner's statistics and one short game through it."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _selfplay():
    spec = importlib.util.spec_from_file_location("bench_selfplay", REPO / "bench" / "selfplay.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_selfplay"] = module
    spec.loader.exec_module(module)
    return module


def test_interval_of_mixed_and_one_sided_results() -> None:
    sp = _selfplay()
    mean, lo, hi = sp.interval([1.0] * 30 + [0.0] * 10)
    assert mean == pytest.approx(0.75)
    half = 1.96 * (sum((s - 0.75) ** 2 for s in [1.0] * 30 + [0.0] * 10) / 39 / 40) ** 0.5
    assert (lo, hi) == pytest.approx((0.75 - half, 0.75 + half))
    mean, lo, hi = sp.interval([1.0] * 40)          # Wilson bound, not a zero-width interval
    assert mean == 1.0 and hi == 1.0 and 0.9 < lo < 0.95
    assert sp.interval([0.5, 1.0]) [0] == pytest.approx(0.75)


def test_a_short_selfplay_game_is_scored_for_a() -> None:
    sp = _selfplay()
    result = sp.play_game((0, "tablut", {}, "easy", "easy", 0.2, 0.2, 12, 2, 5, True))
    assert result.plies <= 12 + 2
    assert result.a_score in (0.0, 0.5, 1.0)
    if result.winner is None:
        assert result.a_score == 0.5
    else:
        assert (result.a_score == 1.0) == (result.winner == "attackers")


def test_level_overrides_for_one_match() -> None:
    sp = _selfplay()
    assert sp._overrides(2, None) == {"max_depth": 2}
    assert sp._overrides(None, 12.5) == {"noise": 12.5}
    assert sp._overrides(None, None) == {}
    with pytest.raises(SystemExit):
        sp._overrides(0, None)
    with pytest.raises(SystemExit):
        sp._overrides(None, -1.0)
    # a game with A's depth overridden runs and is scored like any other
    result = sp.play_game((0, "tablut", {}, "medium", "easy", 0.2, 0.2, 8, 2, 5, False,
                           None, None, {"max_depth": 1}, {}))
    assert result.plies <= 8 + 2 and result.a_score in (0.0, 0.5, 1.0)


def test_eval_overrides_are_checked_and_reach_the_search() -> None:
    sp = _selfplay()
    assert sp._parse_eval("seal=0, region=2.5,route3_cap=4") == {"seal": 0.0, "region": 2.5, "route3_cap": 4}
    assert sp._parse_eval(None) == {}
    with pytest.raises(SystemExit, match="sael=1.*seal"):
        sp._parse_eval("sael=1")
    with pytest.raises(SystemExit, match="'x' is not a number"):
        sp._parse_eval("seal=x")
    from engine.board import Board
    board = Board("copenhagen")
    weights = sp._weights(board, {"seal": 0.0})
    assert weights is not None and weights.seal == 0.0 and weights.attacker == 100.0
    assert sp._weights(board, {}) is None
