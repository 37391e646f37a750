"""The three default levels keep their order: each one sees further than the one below."""
from __future__ import annotations

from engine.levels import DEFAULT_LEVELS, LEVEL_NAMES


def test_levels_grow_in_depth_and_time_and_hard_has_no_noise() -> None:
    easy, medium, hard = (DEFAULT_LEVELS[n] for n in LEVEL_NAMES)
    assert easy.max_depth < medium.max_depth < hard.max_depth
    assert easy.time_s <= medium.time_s <= hard.time_s
    assert hard.noise == 0.0 and medium.noise > 0 and easy.noise > 0
    assert all(lv.blunder_guard for lv in (easy, medium, hard))


def test_medium_is_tuned_to_the_casual_visitor_not_weaker_than_it() -> None:
    # bench/visitor_players.py: the casual visitor is Medium's depth with more
    # noise; at the same noise Medium would only tie it, and lose ground to Easy
    from tests.helpers.bench import load_bench

    casual = load_bench("visitor_players").casual_level()
    medium = DEFAULT_LEVELS["medium"]
    assert casual.max_depth == medium.max_depth
    assert medium.noise < casual.noise
