"""bench/visitor_players.py reports a visitor's results per level and per side, draws apart."""
from __future__ import annotations

import pytest

from tests.helpers.bench import load_bench as _load


def test_tally_counts_wins_draws_and_losses_apart() -> None:
    vp = _load("visitor_players")
    t = vp.Tally()
    for score in (1.0, 0.5, 0.5, 0.0):
        t.add(score)
    assert (t.wins, t.draws, t.losses, t.games) == (1, 2, 1, 4)
    assert t.score == 2.0
    assert "+1 =2 -1" in t.text() and "0.50" in t.text()


def test_table_has_one_line_per_level_with_both_sides_and_overall() -> None:
    vp = _load("visitor_players")
    tallies = {(v, lv, side): vp.Tally() for v in ("beginner",) for lv in ("easy", "hard")
               for side in (True, False)}
    tallies[("beginner", "easy", True)].add(1.0)
    tallies[("beginner", "easy", False)].add(0.0)
    tallies[("beginner", "easy", False)].add(0.5)
    lines = vp.table_lines(tallies, ["beginner"], ["easy", "hard"])
    assert len(lines) == 2
    easy, hard = lines
    attack, rest = easy.split("as defenders")
    defend, overall = rest.split("overall")
    assert "1.0/1" in attack and "+1 =0 -0" in attack
    assert "0.5/2" in defend and "+0 =1 -1" in defend
    assert "1.5/3" in overall and "0.50" in overall
    assert "hard" in hard and "no games" in hard


@pytest.mark.slow
def test_a_short_run_prints_the_table_per_level_and_side(capsys: pytest.CaptureFixture[str]) -> None:
    vp = _load("visitor_players")
    assert vp.main(["--games", "1", "--visitors", "beginner", "--levels", "easy", "--max-plies", "12"]) == 0
    out = capsys.readouterr().out
    games = [ln for ln in out.splitlines() if "beginner vs easy:" in ln and " game " in ln]
    table = [ln for ln in out.splitlines() if "beginner vs easy " in ln and "as attackers" in ln]
    assert len(games) == 2 and len(table) == 1
    assert "as defenders" in table[0] and "overall" in table[0] and "/1 " in table[0]


@pytest.mark.slow
def test_a_run_split_at_a_round_numbers_its_games_as_the_whole_run_would(capsys: pytest.CaptureFixture[str]) -> None:
    """--first-round K plays only rounds K.. (one long run split over processes), numbered as in the whole run."""
    vp = _load("visitor_players")
    assert vp.main(["--games", "2", "--first-round", "1", "--visitors", "beginner", "--levels", "easy",
                    "--max-plies", "12"]) == 0
    out = capsys.readouterr().out
    numbers = [int(ln.split(" game ")[1].split(":")[0]) for ln in out.splitlines()
               if "beginner vs easy:" in ln and " game " in ln]
    assert numbers == [2, 3]
    table = [ln for ln in out.splitlines() if "beginner vs easy " in ln and "as attackers" in ln]
    assert len(table) == 1 and "/1 " in table[0]
