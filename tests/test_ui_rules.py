"""The rule diagrams tell the truth: each one, placed on a real board, does in the engine what it shows."""
import pytest

from engine import Move
from kiosk.ui.rules import diagram_frame
from kiosk.ui.rules_content import STEPS, embed, local_square

DIAGRAMS = [(variant, step.key, k, d) for variant, steps in STEPS.items() for step in steps
            for k, d in enumerate(step.diagrams) if not d.start]


@pytest.mark.parametrize("variant,step,index,diagram", DIAGRAMS,
                         ids=[f"{v}-{s}-{i}" for v, s, i, _ in DIAGRAMS])
def test_diagram_agrees_with_the_engine(variant, step, index, diagram):
    board, offset = embed(diagram, variant)
    size = board.size
    if diagram.move is not None:
        move = Move(*(local_square(name, diagram, offset, size) for name in diagram.move))
        assert board.is_legal(move), f"{diagram.move} is not legal here"
        captured = set(board.captures_of(move))
        assert captured == {local_square(n, diagram, offset, size) for n in diagram.removed}
        after = board.copy()
        after.push(move)
        outcome = after.outcome()
        if step == "win":
            assert outcome is not None and outcome.winner is not None and outcome.winner.value == "defenders"
        if step == "king" and diagram.verdict:
            assert outcome is not None and outcome.reason == "king_captured"
        if step == "king" and diagram.verdict is False:
            assert outcome is None or outcome.reason != "king_captured"
    if diagram.dots:
        source = diagram.move[0] if diagram.move else next(
            f"{'abcde'[f]}{diagram.size - r}" for r, row in enumerate(diagram.rows) for f, ch in enumerate(row) if ch in "tTK")
        src = local_square(source, diagram, offset, size)
        crop = {local_square(f"{'abcdefg'[f]}{r + 1}", diagram, offset, size)
                for f in range(diagram.size) for r in range(diagram.size)}
        legal = {m.to_sq for m in board.legal_moves if m.from_sq == src} & crop
        assert legal == {local_square(n, diagram, offset, size) for n in diagram.dots}


def test_every_capture_rule_is_shown_as_a_pair():
    for variant, steps in STEPS.items():
        for step in steps:
            if step.key in ("capture", "corner", "shieldwall", "stop"):
                assert [d.verdict for d in step.diagrams] == [True, False], (variant, step.key)


def test_animation_slides_then_removes_the_captured_piece():
    diagram = STEPS["copenhagen"][2].diagrams[0]          # capture: d1-d3 takes c3
    n = diagram.size
    c3, d1, d3 = 2 * n + 2, 3, 2 * n + 3
    pieces, slide, fading, verdict = diagram_frame(diagram, 0.1)
    assert c3 in pieces and d1 in pieces and slide is None and not verdict
    pieces, slide, fading, verdict = diagram_frame(diagram, 1.0)
    assert slide is not None and slide[0] == d1 and slide[1] == d3 and 0 < slide[2] < 1
    pieces, slide, fading, verdict = diagram_frame(diagram, 1.6)
    assert fading.get(c3, 0) > 0 and verdict
    pieces, slide, fading, verdict = diagram_frame(diagram, 3.0)
    assert c3 not in pieces and d3 in pieces and verdict
