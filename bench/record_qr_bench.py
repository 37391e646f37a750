"""How big the take-home QR code is: payload, QR version and module size for real games of several lengths.

Real Copenhagen games from tests/data/copenhagen-games.csv, packed and signed
as the kiosk does (kiosk/record.py), drawn as the result box draws them on
the 10.1" 1280 x 800 panel (5.88 px/mm) and the 7" 800 x 480 one (5.25 px/mm).
Also: how long signing and checking take, and the byte-mode-only version the
alphanumeric segment saves.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import segno

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the repository: tests.helpers

from tests.helpers.record import real_game_texts, record_of_texts

from kiosk.record import from_game_record, pack, signed_url, verify_url
from kiosk.record_key import load_or_create
from kiosk.rewards import Unlocks
from kiosk.ui import qr

BASE = "https://museum.example/tafl/"
PANELS: dict[str, tuple[int, int, float]] = {"10.1in 1280x800": (1280, 800, 5.88), "7in 800x480": (800, 480, 5.25)}


def result_box_module_px(width: int, height: int, modules: int) -> tuple[int, int]:
    """The module sizes of the result box's code and of the touched, large one (kiosk/ui/game.py)."""
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from kiosk.ui.game import split_rects
    from kiosk.ui.layout import Layout

    lay = Layout.for_size((width, height))
    board, _ = split_rects(lay)
    box_w, box_h = int(board.width * 0.96), int(board.height * 0.92)
    band = lay.font_title + lay.gap * 3
    column_h = box_h - band - lay.target - lay.gap * 4 - lay.font_small - lay.gap
    column_w = int((box_w - lay.gap * 6) * 0.6)
    return min(column_h, column_w) // (modules + 8), (lay.height - 2 * lay.margin) // (modules + 8)


def main() -> int:
    key = load_or_create(tempfile.mkdtemp(prefix="tafl-qr-bench-"))
    print(f"{'plies':>5} {'body B':>6} {'URL chars':>9} {'version':>7} {'modules':>7} {'byte-only':>9}  "
          + "  ".join(f"{name}: module (code side)" for name in PANELS))
    for plies in (40, 100, 150, 200, 300):
        record = from_game_record(record_of_texts(real_game_texts(plies)), "hall-2", Unlocks(True, True, True))
        url = signed_url(record, key.sign, BASE)
        code = qr.make(url)
        byte_only = segno.make_qr(url, error=qr.ERROR_LEVEL, boost_error=False).version
        n = int(code.symbol_size(border=0)[0])
        cells = []
        for w, h, px_mm in PANELS.values():
            box, large = result_box_module_px(w, h, n)
            cells.append(f"box {box} px = {box / px_mm:.2f} mm ({box * (n + 8) / px_mm:.0f} mm), "
                         f"touched {large} px = {large / px_mm:.2f} mm ({large * (n + 8) / px_mm:.0f} mm)")
        print(f"{len(record.moves):>5} {len(pack(record)):>6} {len(url):>9} {code.version:>7} {n:>7} "
              f"{byte_only:>9}  " + "  ".join(cells))
    record = from_game_record(record_of_texts(real_game_texts(200)), "hall-2")
    body = pack(record)
    t0 = time.perf_counter()
    for _ in range(200):
        url = signed_url(record, key.sign, BASE)
    sign_ms = (time.perf_counter() - t0) / 200 * 1000
    t0 = time.perf_counter()
    for _ in range(200):
        verify_url(url, [key.public_bytes])
    verify_ms = (time.perf_counter() - t0) / 200 * 1000
    print(f"200 plies: pack+sign {sign_ms:.2f} ms, verify+unpack {verify_ms:.2f} ms, body {len(body)} bytes "
          f"({len(body) * 8 / len(record.moves):.1f} bits a ply with the header)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
