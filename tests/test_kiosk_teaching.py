"""Teaching (kiosk/teaching.py): sentences in every language, the hint budget, hints through the
controller and the real search process, and hints in the game log."""
from __future__ import annotations

import time

import pytest

from calibration.config import Config
from engine import Board, Side, parse_square
from engine.reasons import CODES, Reason, explain_text, hint
from kiosk.engine_worker import EngineWorker, HintReply, search_hint
from kiosk.gamelog import read_games
from kiosk.i18n import Texts, available_languages, load_catalog
from kiosk.teaching import Teacher, highlighted_squares, reason_sentence, reasons_text
from tests.helpers.fakes import InstantEngine
from tests.helpers.rig import Rig

VOICES = ("robot", "hint")


# ----------------------------------------------------------------------------- sentences
@pytest.mark.parametrize("language", available_languages())
def test_every_code_has_a_sentence_in_both_voices_in_every_language_file(language):
    catalog = load_catalog(language)          # this file alone: no fallback to English
    missing = [f"teach.{voice}.{code}" for voice in VOICES for code in CODES
               if f"teach.{voice}.{code}" not in catalog]
    assert missing == [], f"{language}.json lacks {missing}"
    for key in ("teach.hint_move", "teach.button", "teach.thinking", "teach.list", "teach.how_to_play",
                "teach.playing.title", "teach.playing.text", "teach.levels.title", "teach.levels.text"):
        assert key in catalog, f"{language}.json lacks {key}"


@pytest.mark.parametrize("language", available_languages())
@pytest.mark.parametrize("count", [1, 2, 3])
def test_sentences_fill_every_placeholder(language, count):
    texts = Texts(language)
    for voice in VOICES:
        for code in CODES:
            sentence = reason_sentence(texts, voice, Reason(code, tuple(range(count))), 11)
            assert "{" not in sentence and "teach." not in sentence, (voice, code, sentence)


def test_sentences_name_the_squares_and_count_in_words():
    texts = Texts("en")
    size = 11
    b1, a1, k1 = (parse_square(n, size) for n in ("b1", "a1", "k1"))
    assert reason_sentence(texts, "robot", Reason("blocks_escape", (a1,)), size) == \
        "I blocked your king's way to a1."
    assert reason_sentence(texts, "robot", Reason("captures", (a1, b1)), size) == "I captured two of your pieces."
    assert reason_sentence(texts, "robot", Reason("threatens_king", (b1,)), size) == \
        "Careful: I can capture your king next move."
    assert "a1 and k1" in reason_sentence(texts, "hint", Reason("double_escape_threat", (a1, k1)), size)
    texts.set_language("sv")
    assert reason_sentence(texts, "robot", Reason("captures", (a1, b1)), size) == "Jag tog två av dina pjäser."


def test_at_most_two_reasons_are_said_and_develops_only_alone():
    texts = Texts("en")
    reasons = (Reason("captures", (1,)), Reason("threatens_capture", (2,)), Reason("saves_piece", (3,)))
    text = reasons_text(texts, "robot", reasons, 11)
    assert text.count(".") == 2 and "danger" not in text
    assert highlighted_squares(reasons) == [1, 2]
    assert reasons_text(texts, "robot", (Reason("develops", (5,)),), 11) == "I moved a piece to f1."


# ------------------------------------------------------------------------------ the budget
def test_hints_per_level_come_from_the_config():
    teacher = Teacher.from_config(Config())
    expected = {"easy": None, "medium": 3, "hard": 1}
    for level, left in expected.items():
        teacher.new_game(level)
        assert teacher.hints_left() == left
    config = Config()
    config.engine.levels["hard"].hints = 0
    teacher = Teacher.from_config(config)
    teacher.new_game("hard")
    assert teacher.hints_left() == 0


class HintingEngine(InstantEngine):
    """InstantEngine that answers hints with the engine's own hint, on the next poll_hint."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.hint_requests: list[tuple[int, list[str], str]] = []
        self.hint_reply: HintReply | None = None

    def offers_hints(self) -> bool:
        return True

    def request_hint(self, hint_id, variant, options, moves_otn, level) -> None:
        self.hint_requests.append((hint_id, list(moves_otn), level))
        levels = {name: {"time_s": 0.5, "max_depth": 1, "noise": 40.0} for name in ("easy", "medium", "hard")}
        self.hint_reply = HintReply(hint_id, search_hint(variant, options, moves_otn, levels[level], 0))

    def poll_hint(self):
        reply, self.hint_reply = self.hint_reply, None
        return reply


def _rig(tmp_path, level: str, side: Side = Side.ATTACKERS) -> Rig:
    rig = Rig(tmp_path, seed=4)
    rig.engine = HintingEngine(4)
    rig.ctrl = rig.make()
    rig.ctrl.start_game("copenhagen", {}, side, level)
    rig.run_until({"visitor_turn"})
    return rig


def test_a_hint_through_the_controller_is_shown_counted_dropped_after_the_move_and_logged(tmp_path):
    rig = _rig(tmp_path, "hard")
    assert rig.ctrl.view().teaching.hints_left == 1 and rig.ctrl.view().teaching.hints_offered
    assert rig.ctrl.request_hint()
    rig.step()
    teach = rig.ctrl.view().teaching
    assert teach.hint is not None and teach.hint.ply == 0 and teach.hints_left == 0
    board = rig.ctrl.view().board
    assert board.is_legal(teach.hint.move) and teach.hint.reasons
    assert not rig.ctrl.request_hint(), "Hard allows one hint a game"
    assert len(rig.engine.hint_requests) == 1
    move = teach.hint.move
    rig.world.visitor_move(move.from_sq, move.to_sq)
    rig.run_until({"thinking", "robot_moving"})
    assert rig.ctrl.view().teaching.hint is None          # the game moved on
    rig.run_until({"visitor_turn", "game_over"})
    teach = rig.ctrl.view().teaching
    assert teach.robot_ply == rig.ctrl.view().ply and teach.robot_reasons, "the robot's move has its reasons"
    before = rig.ctrl.view().board.copy()
    last = before.pop()
    assert teach.robot_reasons == explain_text(before, last.otn(11)).reasons
    rig.ctrl.resign()
    games = read_games(rig.state_dir).games
    assert games[-1].hints == [{"ply": 0, "move": games[-1].moves[0]}]     # the visitor took the hint


def test_no_hint_on_the_robots_turn_and_unlimited_on_easy(tmp_path):
    rig = _rig(tmp_path, "easy", side=Side.DEFENDERS)   # the robot opens, then it is the visitor's turn
    for _ in range(5):
        assert rig.ctrl.request_hint()
        rig.step()
        assert rig.ctrl.view().teaching.hint is not None
        rig.visitor_random_move()
        rig.run_until({"visitor_turn", "game_over"})
    assert rig.ctrl.view().teaching.hints_left is None
    rig.ctrl.resign()
    assert not rig.ctrl.request_hint()
    assert len(read_games(rig.state_dir).games[-1].hints) == 5


def test_a_port_without_hints_offers_none(tmp_path):
    rig = Rig(tmp_path, seed=2)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    assert not rig.ctrl.view().teaching.hints_offered and not rig.ctrl.request_hint()


# ------------------------------------------------------------------------ the search process
LEVELS = {
    "easy": {"time_s": 0.2, "max_depth": 1, "noise": 40.0, "blunder_guard": True},
    "hard": {"time_s": 0.5, "max_depth": 64, "noise": 0.0, "blunder_guard": True},
}


def _wait(poll, wait_s: float = 60.0):
    """The first answer `poll()` gives within `wait_s` (a bound against hanging, not a speed check)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        reply = poll()
        if reply is not None:
            return reply
        time.sleep(0.02)
    return None


def test_the_search_process_answers_a_hint_during_a_ponder_and_keeps_moves_apart():
    worker = EngineWorker(LEVELS, seed=1, ponder_max_s=600.0)
    try:
        opening = ["d11-d9", "f4-d4"]
        worker.ponder("copenhagen", {}, opening, "hard")
        time.sleep(0.5)
        worker.request_hint(3, "copenhagen", {}, opening, "hard")
        reply = _wait(worker.poll_hint)
        assert reply is not None and reply.hint_id == 3 and reply.error is None, reply
        board = Board("copenhagen")
        for m in opening:
            board.push(board.parse_move(m))
        assert board.is_legal(board.parse_move(reply.explained.move.split("x")[0]))
        assert reply.explained.reasons and worker.poll() is None      # no robot move came of it
        worker.request(9, "copenhagen", {}, opening, "hard")          # the robot's move still comes back
        answer = _wait(worker.poll)
        assert answer is not None and answer[0] == 9
        worker.request_hint(4, "copenhagen", {}, ["d11-d9", "f4-d4", "zz"], "easy")   # a broken request
        reply = _wait(worker.poll_hint)
        assert reply is not None and reply.hint_id == 4 and reply.explained is None and "ValueError" in reply.error
    finally:
        worker.stop()


def test_a_hint_finds_the_win_the_engine_finds():
    # The king on d1 with a1 open: the hint is the escape, at every level.
    from engine.otn import build_position

    position = build_position(11, "h1 j9", "h8", "d1")
    board = Board.from_otn("copenhagen", position, turn=Side.DEFENDERS)
    assert hint(board, "easy").reasons[0].code == "escape"


def test_a_hint_nobody_waits_for_does_not_hold_up_the_robots_move():
    # a hint allowed ten minutes: only the interruption can make the move come back
    levels = {"slow": {"time_s": 600.0, "max_depth": 64, "noise": 0.0}, **LEVELS}
    worker = EngineWorker(levels, seed=2, pondering=False)
    try:
        worker.request_hint(1, "copenhagen", {}, [], "slow")
        time.sleep(0.5)
        worker.request(2, "copenhagen", {}, [], "easy")
        answer = _wait(worker.poll)
        assert answer is not None and answer[0] == 2, "the hint search was not cut short"
    finally:
        worker.stop()


def test_hints_in_the_game_log_round_trip_and_a_damaged_entry_is_refused(tmp_path):
    import json

    from datetime import datetime, timezone

    from kiosk.gamelog import GameRecord, append_game, summary

    when = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
    record = GameRecord(variant="copenhagen", visitor_side="attackers", level="medium", result="robot",
                        reason="resigned", moves=["d1-d3"], started_at=when, ended_at=when,
                        hints=[{"ply": 0, "move": "d1-d3"}])
    assert GameRecord.from_json(record.to_json()).hints == [{"ply": 0, "move": "d1-d3"}]
    append_game(tmp_path, record)
    assert summary(tmp_path).hints == 1 and "hints: 1 in 1 games" in summary(tmp_path).as_text()
    data = json.loads(record.to_json())
    data["hints"] = 3
    with pytest.raises(ValueError, match="hints"):
        GameRecord.from_json(json.dumps(data))
    del data["hints"]                                   # a line written before hints were logged
    assert GameRecord.from_json(json.dumps(data)).hints == []


def test_a_hint_used_before_a_power_cut_stays_used_and_logged(tmp_path):
    rig = _rig(tmp_path, "hard")
    assert rig.ctrl.request_hint()
    rig.step()
    assert rig.ctrl.view().teaching.hints_left == 0
    rig.ctrl = rig.make()                        # the power cut: a new controller from the same state directory
    rig.step()
    teach = rig.ctrl.view().teaching
    assert teach.hints_left == 0, "the hint used before the cut must still count"
    assert not rig.ctrl.request_hint()
    rig.ctrl.resign()
    games = read_games(rig.state_dir).games
    assert len(games[-1].hints) == 1 and games[-1].hints[0]["ply"] == 0



@pytest.mark.parametrize("language", ["en", "sv"])
def test_a_piece_saved_by_blocking_is_not_said_to_have_moved(language):
    """saves_piece names where the saved piece stands, which need not be the moved one: the robot
    played e5-d5 to cover its piece on d4 and had said "I moved my piece out of danger, to d4"."""
    d4 = parse_square("d4", 11)
    texts = Texts(language)
    voices = [key.split(".")[1] for key in load_catalog(language) if key.endswith(".saves_piece_one")]
    assert len(voices) >= 2
    for voice in voices:
        sentence = reason_sentence(texts, voice, Reason("saves_piece", (d4,)), 11)
        assert "d4" in sentence and not any(w in sentence.lower() for w in ("move", "flytta")), (voice, sentence)
