"""The museum's record page (kiosk/web/) in a real headless Chromium: verified, replayed, stepped.

The page is served from 127.0.0.1 (as the museum's web server would serve it,
a secure context for WebCrypto) and loaded with the fragment `tafl-kiosk
record encode` printed. Skips only when Debian's chromium or chromedriver is
absent (.ci/run installs them).
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from typing import ClassVar

import cv2
import numpy as np
import pytest
from tests.helpers import webdriver
from tests.helpers.record import game_record, random_board, real_game_texts, record_of_texts

from engine import Board, square_name
from kiosk.gamelog import append_game
from kiosk.record import PlayedMove, b32encode, pack, split_url, unpack
from kiosk.record_page import PAGE_FILES, WEB_DIR, data_js


def test_the_shipped_data_file_is_made_from_the_engine():
    assert (WEB_DIR / "variants.js").read_text(encoding="utf-8") == data_js(), \
        "kiosk/web/variants.js is stale: python -m kiosk.record_page data > kiosk/web/variants.js"


def test_the_page_asks_nothing_of_the_network():
    for name in PAGE_FILES:
        text = (WEB_DIR / name).read_text(encoding="utf-8")
        addresses = set(re.findall(r"\b(?:https?:)?//[\w.-]+\.\w+[^\s\"')]*", text)) - {"http://www.w3.org/2000/svg"}
        assert not addresses, f"{name} names {addresses}"
    assert "default-src 'none'" in (WEB_DIR / "index.html").read_text()


def _cli(*args):
    result = subprocess.run([sys.executable, "-m", "kiosk.cli", "record", *args], check=False, capture_output=True,
                            text=True,
                            timeout=60, env={**os.environ, "TAFL_KIOSK_CONFIG": os.devnull + ".none"})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requested: ClassVar[list[str]] = []

    def log_message(self, format, *args):
        _Quiet.requested.append(self.path)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The state directory with one real 200-ply game, the page published with its key, served locally."""
    base = tmp_path_factory.mktemp("record-page")
    state = base / "state"
    log = append_game(state, record_of_texts(real_game_texts(200)))
    url = _cli("encode", "--game", str(log))
    page = base / "www"
    said = _cli("page", str(page), "--state", str(state))             # the page to upload, trusting this kiosk
    assert said.startswith(str(page)) and "keys.js" in {p.name for p in page.iterdir()}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(page)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": url, "state": state, "page": f"http://127.0.0.1:{server.server_address[1]}/index.html"}
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    why = webdriver.missing()
    if why:
        pytest.skip(why)
    b = webdriver.Browser()
    yield b
    b.close()


def _open(browser, site, fragment, query=""):
    browser.get("about:blank")                     # a new document each time, not a same-page jump
    browser.get(f"{site['page']}{query}#{fragment}")
    browser.wait_for("return document.body.dataset.ready === 'yes'")
    return browser.run("const s = document.getElementById('status'); return [s.dataset.state, s.textContent];")


def _drawn(browser):
    return dict(browser.run(
        "return [...document.querySelectorAll('#board g.piece')].map(g => [g.dataset.square, g.dataset.piece]);"))


def _engine_position(board: Board) -> dict[str, str]:
    return {square_name(sq, board.size): piece.value for sq, piece in board.pieces().items()}


def test_a_genuine_record_is_verified_drawn_and_stepped(browser, site):
    fragment = site["url"].split("#", 1)[1]
    state, text = _open(browser, site, fragment)
    assert state == "verified" and text.startswith("verified"), text
    record = unpack(split_url(site["url"])[0])
    board = Board("copenhagen")
    positions = [_engine_position(board)]
    for move in record.otn_moves():
        if board.is_game_over():
            board.resume()
        board.push(board.parse_move(move))
        positions.append(_engine_position(board))
    assert _drawn(browser) == positions[-1]                           # the final position
    assert browser.run("return document.getElementById('ply').textContent") == "move 200 of 200"
    browser.click("#first")
    assert _drawn(browser) == positions[0]
    for k in range(1, 4):
        browser.click("#next")
        assert _drawn(browser) == positions[k] and browser.run("return document.body.dataset.ply") == str(k)
    browser.click("#back")
    assert _drawn(browser) == positions[2]
    browser.click("#moves li[data-ply='57']")
    assert _drawn(browser) == positions[57]
    browser.click("#last")
    assert _drawn(browser) == positions[-1]
    moves = browser.run("return [...document.querySelectorAll('#moves li')].map(li => li.textContent);")
    assert moves == record.otn_moves()
    rewards = browser.run("return [...document.querySelectorAll('#rewards li')].map(li => li.dataset.unlock);")
    assert rewards == ["crown"] and browser.run("return !!document.getElementById('avatar-crown')")
    assert all(path.startswith(("/index.html", "/variants.js", "/keys.js", "/ed25519.js", "/record.js",
                                "/favicon.ico")) for path in _Quiet.requested), _Quiet.requested
    entries = browser.run("return performance.getEntriesByType('resource').map(e => e.name);")
    assert all(name.startswith(site["page"].rsplit("/", 1)[0]) for name in entries), entries


def test_the_board_is_drawn_in_pixels(browser, site):
    _open(browser, site, site["url"].split("#", 1)[1])
    record = unpack(split_url(site["url"])[0])
    final = _drawn(browser)
    boxes = browser.run("""const out = {};
        for (const r of document.querySelectorAll('#board rect[data-square]')) {
          const b = r.getBoundingClientRect(); out[r.dataset.square] = [b.x + b.width / 2, b.y + b.height / 2];
        } return [out, window.devicePixelRatio];""")
    centres, ratio = boxes
    image = cv2.imdecode(np.frombuffer(browser.screenshot_png(), np.uint8), cv2.IMREAD_COLOR)
    attacker = np.array([22, 30, 45])          # BGR of the real attackers (scheme 0: the record earned no colours)
    defender = np.array([200, 225, 235])
    assert not record.unlocks.colours
    for name, (x, y) in centres.items():
        pixel = image[int(y * ratio), int(x * ratio)].astype(int)
        piece = final.get(name)
        if piece == "t":
            assert np.abs(pixel - attacker).max() < 40, (name, pixel)
        elif piece == "T":
            assert np.abs(pixel - defender).max() < 40, (name, pixel)
        elif piece is None and name not in ("a1", "k1", "a11", "k11", "f6"):   # a cross marks those
            assert np.abs(pixel - attacker).max() > 80 and np.abs(pixel - defender).max() > 25, (name, pixel)


@pytest.mark.parametrize("verifier", ["bigint", "webcrypto"])
def test_one_changed_move_is_not_verified(browser, site, verifier):
    body, signature = split_url(site["url"])
    record = unpack(body)
    moves = list(record.moves)
    # move 120 stops one square short (or long) on its line: still a move on the board
    m = moves[119]
    size = record.size
    step = 1 if m.to_sq > m.from_sq else -1
    line = size if m.to_sq // size != m.from_sq // size else 1
    moves[119] = PlayedMove(m.from_sq, m.to_sq - step * line, m.captures)
    forged = pack(record.__class__(**{**record.__dict__, "moves": tuple(moves)}))
    assert forged != body
    state, text = _open(browser, site, b32encode(forged + signature), f"?verifier={verifier}")
    assert state == "not-verified" and text.startswith("not verified"), text
    genuine, _ = _open(browser, site, site["url"].split("#", 1)[1], f"?verifier={verifier}")
    assert genuine == "verified"
    assert browser.run("return document.getElementById('status').dataset.how") == verifier


def test_other_variants_replay_like_the_engine(browser, site, tmp_path):
    """Random games full of captures (Throw Board's stop-between-two, Tablut's camps) drawn like the engine's."""
    for variant, options in (("tablut", {}), ("tawlbwrdd", {"layout": "lewis"}), ("york", {"king_armed": "no"})):
        board = random_board(variant, 5, plies=150, options=options)
        log = append_game(tmp_path / variant, game_record(board, result="robot", winner="attackers", level="easy"))
        url = _cli("encode", "--game", str(log), "--state", str(site["state"]))
        state, text = _open(browser, site, url.split("#", 1)[1])
        assert state == "verified", (variant, text)
        assert _drawn(browser) == _engine_position(board), variant
        assert browser.run("return document.querySelectorAll('#rewards li').length") == 0


def test_a_page_without_a_record_says_so(browser, site):
    state, text = _open(browser, site, "")
    assert state == "not-verified" and "no game record" in text
    state, text = _open(browser, site, "NOT0BASE32")
    assert state == "not-verified" and "base32" in text
