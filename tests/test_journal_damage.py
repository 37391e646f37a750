"""The journal is validated line by line: a bad line anywhere is found, the good prefix is kept,
the damaged file is set aside for staff and named in one WARNING; the controller then resumes
the prefix's game if the camera agrees, or declares it lost and clears the board."""
from __future__ import annotations

import json
import logging
import os

import pytest
from engine import Board, Side

from kiosk import notices
from kiosk.journal import CURRENT_NAME, Journal, read_journal, read_records
from tests.helpers.rig import Rig, one_move_in


@pytest.fixture(autouse=True)
def _no_old_notices():
    notices.clear()
    yield
    notices.clear()


def write_game(state_dir, plies: int = 6) -> list[str]:
    """A journal of a copenhagen game with `plies` legal moves; returns the moves."""
    j = Journal(state_dir)
    board = Board("copenhagen")
    j.append("game_started", variant="copenhagen", options={}, visitor_side="attackers", level="easy")
    j.append("setup_done")
    moves = []
    for ply in range(plies):
        move = sorted(board.legal_moves, key=lambda m: board.move_to_otn(m))[ply % 3]
        otn = board.move_to_otn(move)
        board.push(move)
        j.append("visitor_move" if ply % 2 == 0 else "robot_move", move=otn, captures=[], left=[],
                 **({"plan": []} if ply % 2 else {}))
        moves.append(otn)
    j.close()
    return moves


def lines_of(state_dir) -> list[bytes]:
    return (state_dir / CURRENT_NAME).read_bytes().split(b"\n")[:-1]


def without_checksums(state_dir) -> list[dict]:
    """The journal's records as lines written before checksums existed would hold them."""
    return [{k: v for k, v in json.loads(line).items() if k != "crc"} for line in lines_of(state_dir)]


def put_lines(state_dir, lines: list[bytes], tail: bytes = b"\n") -> None:
    (state_dir / CURRENT_NAME).write_bytes(b"\n".join(lines) + tail)


def test_every_line_carries_a_checksum_and_reads_back(tmp_path):
    moves = write_game(tmp_path)
    lines = lines_of(tmp_path)
    assert all(line.endswith(b'"}') and b',"crc":"' in line for line in lines)
    reading = read_journal(tmp_path / CURRENT_NAME)
    assert reading.damage is None
    assert [r.get("move") for r in reading.records if "move" in r.data] == moves
    assert [r.seq for r in reading.records] == list(range(1, len(lines) + 1))


def test_an_old_journal_without_checksums_still_reads(tmp_path):
    write_game(tmp_path)
    old = [json.dumps(obj).encode() for obj in without_checksums(tmp_path)]
    # the old code closed a torn line off with a newline and went on with the next seq
    old.insert(3, b'{"seq":4,"kind":"visi')
    put_lines(tmp_path, old)
    reading = read_journal(tmp_path / CURRENT_NAME)
    assert reading.damage is None and len(reading.records) == len(old) - 1
    # and new lines with checksums may follow old ones
    j = Journal(tmp_path)
    assert j.damage is None
    j.append("homing", job=1)
    assert read_journal(tmp_path / CURRENT_NAME).records[-1].kind == "homing"


def flip(line: bytes) -> bytes:
    """Change one digit of a move (e.g. a4 -> a5): still JSON, still a plausible record."""
    i = line.index(b'"move":"') + 9
    return line[:i] + bytes([line[i] ^ 1]) + line[i + 1:]


CASES = {
    "bad middle line": (lambda ls: ls[:4] + [flip(ls[4])] + ls[5:], 5, "bad checksum", 4),
    "garbage middle line": (lambda ls: ls[:4] + [b"\x00garbage"] + ls[5:], 5, "not JSON", 4),
    "deleted middle line": (lambda ls: ls[:4] + ls[5:], 5, "seq 6 where 5 was due", 4),
    "garbled game_started": (lambda ls: [ls[0][:20] + b"#" + ls[0][21:]] + ls[1:], 1, "", 0),
    "invalid UTF-8": (lambda ls: ls[:3] + [ls[3][:10] + b"\xff\xfe" + ls[3][12:]] + ls[4:], 4, "not UTF-8", 3),
    "null line": (lambda ls: ls[:2] + [b"null"] + ls[3:], 3, "not a record", 2),
    "[] line": (lambda ls: ls[:2] + [b"[]"] + ls[3:], 3, "not a record", 2),
    "{} line": (lambda ls: ls[:2] + [b"{}"] + ls[3:], 3, "bad seq", 2),
    "line without checksum after checksums": (
        lambda ls: ls[:3] + [json.dumps({k: v for k, v in json.loads(ls[3]).items() if k != "crc"}).encode()]
        + ls[4:], 4, "no checksum", 3),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_line_anywhere_is_found_and_the_good_prefix_kept(tmp_path, case):
    write_game(tmp_path)
    damage_fn, line, words, kept = CASES[case]
    put_lines(tmp_path, damage_fn(lines_of(tmp_path)))
    reading = read_journal(tmp_path / CURRENT_NAME)
    assert reading.damage is not None, case
    assert reading.damage.line == line and words in reading.damage.problem
    assert len(reading.records) == kept == reading.damage.kept


def test_a_journal_cut_in_half_is_reported_not_silently_shortened(tmp_path):
    write_game(tmp_path, plies=12)
    path = tmp_path / CURRENT_NAME
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    reading = read_journal(path)
    assert reading.damage is not None and "torn" in reading.damage.problem
    assert 0 < len(reading.records) < 14


@pytest.mark.parametrize("content,words", [
    (b"", "empty file"),
    (bytes(range(128, 256)) * 3, "not UTF-8"),
    (b"null", "torn"),
    (b"[]\n", "not a record"),
    (b"{}\n", "bad seq"),
    (b"[" * 5000 + b"\n", "not JSON"),
])
def test_a_whole_file_of_nonsense_keeps_nothing(tmp_path, content, words):
    (tmp_path / CURRENT_NAME).write_bytes(content)
    reading = read_journal(tmp_path / CURRENT_NAME)
    assert reading.records == [] and reading.damage is not None and words in reading.damage.problem


def test_an_illegal_move_in_an_old_journal_cuts_the_game_there(tmp_path):
    write_game(tmp_path)
    lines = without_checksums(tmp_path)
    lines[5]["move"] = "a1-a2"                         # a corner: nothing stands there
    put_lines(tmp_path, [json.dumps(o).encode() for o in lines])
    reading = read_journal(tmp_path / CURRENT_NAME)
    assert reading.damage is not None and "a1-a2" in reading.damage.problem and reading.damage.line == 6
    assert len(reading.records) == 5


def test_a_damaged_journal_is_set_aside_named_once_and_its_prefix_written_back(tmp_path, caplog):
    write_game(tmp_path)
    lines = lines_of(tmp_path)
    broken = lines[:4] + [b"garbage"] + lines[5:]
    put_lines(tmp_path, broken)
    with caplog.at_level(logging.INFO):
        j = Journal(tmp_path)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(tmp_path / CURRENT_NAME) in warnings[0].getMessage()
    assert "line 5" in warnings[0].getMessage()
    assert j.damage is not None and not j.damage.game_lost and j.damage.kept_as is not None
    assert j.damage.kept_as.read_bytes() == b"\n".join(broken) + b"\n"      # kept as it was, for staff
    assert j.damage.kept_as.name.startswith(CURRENT_NAME + ".damaged-")
    assert lines_of(tmp_path) == lines[:4]                                    # the good prefix, rewritten
    assert [n.file for n in notices.current()] == [str(tmp_path / CURRENT_NAME)]
    rec = j.append("homing", job=1)
    assert rec.seq == 5 and read_journal(tmp_path / CURRENT_NAME).damage is None
    assert Journal(tmp_path).damage is None                                   # the next boot is clean


def test_a_garbled_game_started_line_means_the_game_is_lost(tmp_path):
    write_game(tmp_path)
    lines = lines_of(tmp_path)
    put_lines(tmp_path, [b'{"seq":1,"kind":"game_sta'] + lines[1:])
    j = Journal(tmp_path)
    assert j.damage is not None and j.damage.game_lost
    assert not (tmp_path / CURRENT_NAME).exists()
    assert "lost" in notices.current()[0].action



def test_controller_declares_a_lost_game_and_clears_the_board(tmp_path):
    rig = one_move_in(tmp_path, seed=4)
    path = rig.state_dir / CURRENT_NAME
    data = path.read_bytes()
    path.write_bytes(b"\xff" + data[1:])              # the game_started line is garbled
    rig.ctrl = rig.make()
    assert rig.ctrl.view().state == "clearing"
    rig.run_until({"idle"}, limit=5000)
    assert rig.world.square_pieces() == {}
    kinds = [r.kind for r in read_records(rig.state_dir / "games" / os.listdir(rig.state_dir / "games")[0])]
    assert kinds[:2] == ["game_lost", "homing"] or "game_lost" in kinds


def test_controller_resumes_the_prefix_when_the_camera_agrees(tmp_path):
    rig = one_move_in(tmp_path, seed=5)
    ply = rig.ctrl.view().ply
    path = rig.state_dir / CURRENT_NAME
    path.write_bytes(path.read_bytes() + b'{"seq":999,"kind":"sta')     # a torn last line
    rig.ctrl = rig.make()
    view = rig.ctrl.view()
    assert view.resumed and view.ply == ply and rig.ctrl.journal.damage is not None
    rig.visitor_random_move()
    rig.run_until({"visitor_turn"}, limit=5000)
    assert rig.ctrl.view().ply == ply + 2


def test_controller_declares_the_game_lost_when_the_camera_disagrees(tmp_path):
    rig = Rig(tmp_path, seed=6)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    for _ in range(2):
        rig.visitor_random_move()
        rig.run_until({"visitor_turn"}, limit=5000)
    path = rig.state_dir / CURRENT_NAME
    first_move = next(i for i, r in enumerate(read_records(path)) if r.kind == "visitor_move")
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:first_move + 2])[:-9])     # cut in the line after the first move
    rig.ctrl = rig.make()
    assert rig.ctrl.view().resumed
    rig.run_until({"clearing"}, limit=2000)
    rig.run_until({"idle"}, limit=5000)
    assert rig.world.square_pieces() == {}
    assert any("unlike the game" in n.problem for n in notices.current())


def test_a_journal_cut_exactly_at_a_line_end_is_found_by_its_mark(tmp_path):
    moves = write_game(tmp_path)
    lines = lines_of(tmp_path)
    put_lines(tmp_path, lines[:-2])                        # a valid prefix: every line whole and in order
    assert read_journal(tmp_path / CURRENT_NAME).damage is None     # the lines alone cannot tell
    j = Journal(tmp_path)
    assert j.damage is not None and "last 2 records are missing" in j.damage.problem
    assert [r.get("move") for r in j.records if r.get("move")] == moves[:-2]
    assert [n.file for n in notices.current()] == [str(tmp_path / CURRENT_NAME)]
    j.close()
    notices.clear()
    assert Journal(tmp_path).damage is None                # the mark now follows the kept prefix: said once


def test_a_deleted_journal_with_a_game_running_is_damage_not_a_fresh_start(tmp_path):
    write_game(tmp_path)
    (tmp_path / CURRENT_NAME).unlink()
    j = Journal(tmp_path)
    assert j.damage is not None and j.damage.game_lost and "journal is missing" in j.damage.problem
    assert j.damage.kept_as is None and not j.records


def test_an_archived_game_and_an_old_install_without_a_mark_are_no_alarm(tmp_path):
    write_game(tmp_path)
    j = Journal(tmp_path)
    j.archive("copenhagen")
    j.close()
    assert Journal(tmp_path).damage is None and not (tmp_path / CURRENT_NAME).exists()
    write_game(tmp_path / "old")
    (tmp_path / "old" / "journal.mark").unlink()           # written before the mark existed
    put_lines(tmp_path / "old", lines_of(tmp_path / "old")[:-1])
    assert Journal(tmp_path / "old").damage is None


def test_a_damaged_mark_is_set_aside_and_named(tmp_path):
    write_game(tmp_path)
    (tmp_path / "journal.mark").write_bytes(b"\xff\x00")
    assert Journal(tmp_path).damage is None
    assert list(tmp_path.glob("journal.mark.damaged-*"))
    assert [n.file for n in notices.current()] == [str(tmp_path / "journal.mark")]


def test_controller_declares_a_game_lost_when_its_journal_was_deleted_and_clears_the_board(tmp_path):
    rig = one_move_in(tmp_path, seed=7)
    assert rig.world.square_pieces()
    (rig.state_dir / CURRENT_NAME).unlink()
    rig.ctrl = rig.make()
    assert rig.ctrl.view().state == "clearing"
    rig.run_until({"idle"}, limit=5000)
    assert rig.world.square_pieces() == {}
    assert any("journal is missing" in n.problem for n in notices.current())
