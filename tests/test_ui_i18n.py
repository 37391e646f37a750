"""Every visible text comes from the language files; English and Swedish have the same keys."""
import ast
import json
import re
from pathlib import Path

import pytest

from kiosk.i18n import HERE, Texts, available_languages, key_differences, load_catalog
from kiosk.ui.game import ANNOUNCE_KINDS
from kiosk.match import MATCH_FORMATS
from kiosk.ui.rules_content import STEPS
from kiosk.ui.staff import StaffScreen

UI = Path(__file__).resolve().parents[1] / "kiosk" / "ui"

# The controller's message keys (kiosk/controller.py module docstring, "Message keys").
CONTROLLER_MESSAGES = [
    "illegal_move.not_your_piece", "illegal_move.not_straight", "illegal_move.blocked",
    "illegal_move.restricted_square", "illegal_move.rule", "fix_board.mismatch", "fix_board.unclear", "fix_board.which",
    "fix_board.show", "fix_board.robot_result",
    "place_piece.missed_pickup", "place_piece.missing_pieces", "place_piece.storage_full", "gantry.error",
    "camera.waiting", "resume.checking", "capture.left_on_board",
]


def test_languages_have_the_same_keys_and_placeholders():
    report = key_differences()
    assert report, "at least one language besides English"
    for language, problems in report.items():
        assert problems == {"missing": set(), "extra": set(), "placeholders": set()}, language


def test_every_literal_key_used_by_the_screens_exists():
    english = load_catalog("en")
    used = set()
    for path in UI.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("t", "get"):
                for arg in node.args[:2]:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "." in arg.value:
                        used.add(arg.value)
    used = {key for key in used if re.fullmatch(r"[a-z_]+(\.[a-z_0-9]+)+", key)}
    assert len(used) > 40
    assert sorted(used - set(english)) == []


def test_generated_keys_exist():
    english = load_catalog("en")
    wanted = []
    for variant, steps in STEPS.items():
        wanted += [f"variants.{variant}.{k}" for k in ("name", "short", "attackers", "defenders")]
        for step in steps:
            wanted += [f"{step.prefix(variant)}.title", f"{step.prefix(variant)}.text"]
            wanted += [d.caption for d in step.diagrams if d.caption]
    for level in ("easy", "medium", "hard"):
        wanted += [f"levels.{level}.name", f"levels.{level}.text"]
    wanted += [f"messages.{key}" for key in CONTROLLER_MESSAGES]
    wanted += [f"reasons.{r}" for r in ("king_escaped", "king_captured", "edge_fort", "encirclement",
                                        "repetition", "no_moves", "resigned", "ended")]
    wanted += [f"announce.{a}" for a in ANNOUNCE_KINDS]
    wanted += [f"robot.{s}" for s in ("thinking", "setup", "clearing", "verify", "robot_moving", "moving", "parking",
                                      "placing")]
    wanted += [f"start.{page}.title" for page in ("variant", "format", "side", "level")]
    wanted += [f"start.format.{fmt}.{k}" for fmt in MATCH_FORMATS for k in ("name", "text")]
    wanted += [f"staff.page_{page}" for page in StaffScreen.PAGES]
    wanted += [f"game.confirm_{what}{suffix}" for what in ("resign", "end") for suffix in ("", "_yes")]
    wanted += [f"game.{k}_{who}" for k in ("captured", "captured_short", "last_move") for who in ("you", "robot")]
    wanted += [f"rewards.{k}_{name}" for k in ("title", "unlocked", "name") for name in ("colours", "shaded", "crown")]
    wanted += [f"match.edge_{edge}" for edge in ("north", "south", "east", "west")]
    wanted += [f"sides.{side}.{k}" for side in ("attackers", "defenders") for k in ("name", "text")]
    wanted += [f"language.name_{code}" for code in available_languages()]
    wanted += [f"staff.level_{k}_{d}" for k in ("time", "depth") for d in ("less", "more")]
    assert sorted(set(wanted) - set(english)) == []


def test_fallback_placeholders_and_switching(tmp_path):
    (tmp_path / "en.json").write_text(json.dumps({"a": {"b": "Hello {name}"}, "only": "English only"}))
    (tmp_path / "sv.json").write_text(json.dumps({"a": {"b": "Hej {name}"}}))
    texts = Texts("sv", directory=tmp_path)
    assert texts.get("a.b", name="Ada") == "Hej Ada"
    assert texts.get("only") == "English only"            # falls back to English
    assert texts.get("missing.key") == "missing.key"      # visible, not empty
    assert texts.get("a.b") == "Hej {name}"               # a missing value does not crash a frame
    assert texts.next_language() == "en"
    texts.set_language(texts.next_language())
    assert texts.get("a.b", name="Ada") == "Hello Ada"
    with pytest.raises(ValueError, match="no texts for language 'de'"):
        texts.set_language("de")
    assert key_differences(tmp_path)["sv"]["missing"] == {"only"}


def test_broken_file_is_named(tmp_path):
    (tmp_path / "en.json").write_text("{ not json")
    with pytest.raises(ValueError, match="en.json: invalid JSON at line 1"):
        load_catalog("en", tmp_path)


def test_shipped_files_are_utf8_json_objects():
    for path in HERE.glob("*.json"):
        assert isinstance(json.loads(path.read_text(encoding="utf-8")), dict)
    assert "å" in (HERE / "sv.json").read_text(encoding="utf-8")
