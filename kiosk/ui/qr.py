"""A small QR code encoder: byte mode, version 2 (25 x 25 modules), error level M.

The reward code a visitor takes home is at most 26 bytes, so one fixed
version and error level is all the kiosk needs; writing it here keeps the
project free of a dependency for about two hundred lines. The matrix it makes
is checked in the tests by OpenCV's QR detector reading it back.

Facts used (ISO/IEC 18004): version 2-M holds 28 data codewords and 16 error
correction codewords in one block, has one alignment pattern centred at
(18, 18) and 7 remainder bits; Reed-Solomon over GF(256) with the polynomial
0x11D; format information is BCH(15, 5) with generator 0x537, masked with 0x5412.
"""
from __future__ import annotations

VERSION = 2
SIZE = 17 + 4 * VERSION          # 25 modules
DATA_CODEWORDS = 28
EC_CODEWORDS = 16
MAX_BYTES = (DATA_CODEWORDS * 8 - 4 - 8) // 8   # mode + 8-bit count leave room for 26 bytes
EC_LEVEL_M_BITS = 0b00
ALIGNMENT_CENTRE = 18

Matrix = list[list[bool]]        # [row][column], True = dark


def _gf_tables() -> tuple[list[int], list[int]]:
    exp = [0] * 512
    log = [0] * 256
    value = 1
    for power in range(255):
        exp[power] = value
        log[value] = power
        value <<= 1
        if value & 0x100:
            value ^= 0x11D
    for power in range(255, 512):
        exp[power] = exp[power - 255]
    return exp, log


_EXP, _LOG = _gf_tables()


def _gf_mul(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    return _EXP[_LOG[a] + _LOG[b]]


def _rs_generator(degree: int) -> list[int]:
    """Coefficients (highest power first, leading 1) of prod (x - a^i), i < degree."""
    poly = [1]
    for i in range(degree):
        nxt = [0] * (len(poly) + 1)
        for j, coef in enumerate(poly):
            nxt[j] ^= coef
            nxt[j + 1] ^= _gf_mul(coef, _EXP[i])
        poly = nxt
    return poly


def reed_solomon(data: list[int], degree: int = EC_CODEWORDS) -> list[int]:
    """The ``degree`` error correction codewords of ``data`` (polynomial remainder)."""
    gen = _rs_generator(degree)
    remainder = [0] * degree
    for byte in data:
        factor = byte ^ remainder[0]
        remainder = remainder[1:] + [0]
        for k in range(degree):
            remainder[k] ^= _gf_mul(gen[k + 1], factor)
    return remainder


def _data_codewords(payload: bytes) -> list[int]:
    if len(payload) > MAX_BYTES:
        raise ValueError(f"QR payload is {len(payload)} bytes; version {VERSION}-M holds at most {MAX_BYTES}")
    bits: list[int] = []

    def put(value: int, width: int) -> None:
        bits.extend((value >> (width - 1 - k)) & 1 for k in range(width))

    put(0b0100, 4)                  # byte mode
    put(len(payload), 8)
    for byte in payload:
        put(byte, 8)
    capacity = DATA_CODEWORDS * 8
    put(0, min(4, capacity - len(bits)))          # terminator
    put(0, (-len(bits)) % 8)
    words = [int("".join(map(str, bits[k:k + 8])), 2) for k in range(0, len(bits), 8)]
    pad = (0xEC, 0x11)
    used = len(words)
    while len(words) < DATA_CODEWORDS:
        words.append(pad[(len(words) - used) % 2])
    return words


class _Grid:
    def __init__(self) -> None:
        self.dark = [[False] * SIZE for _ in range(SIZE)]
        self.function = [[False] * SIZE for _ in range(SIZE)]

    def set(self, row: int, col: int, dark: bool) -> None:
        self.dark[row][col] = dark
        self.function[row][col] = True


def _draw_function_patterns(grid: _Grid) -> None:
    for k in range(SIZE):                          # timing patterns
        grid.set(6, k, k % 2 == 0)
        grid.set(k, 6, k % 2 == 0)
    for top, left in ((0, 0), (0, SIZE - 7), (SIZE - 7, 0)):   # finders with separators
        for dr in range(-1, 8):
            for dc in range(-1, 8):
                r, c = top + dr, left + dc
                if 0 <= r < SIZE and 0 <= c < SIZE:
                    ring = max(abs(dr - 3), abs(dc - 3))
                    grid.set(r, c, ring != 2 and ring != 4)
    for dr in range(-2, 3):                        # the one alignment pattern
        for dc in range(-2, 3):
            grid.set(ALIGNMENT_CENTRE + dr, ALIGNMENT_CENTRE + dc, max(abs(dr), abs(dc)) != 1)
    _draw_format(grid, 0)                          # reserve the format areas (rewritten later)


def _format_bits(mask: int) -> int:
    data = (EC_LEVEL_M_BITS << 3) | mask
    rem = data
    for _ in range(10):
        rem = (rem << 1) ^ ((rem >> 9) * 0x537)
    return ((data << 10) | rem) ^ 0x5412


def _draw_format(grid: _Grid, mask: int) -> None:
    bits = _format_bits(mask)

    def bit(i: int) -> bool:
        return (bits >> i) & 1 == 1

    for i in range(6):
        grid.set(i, 8, bit(i))
    grid.set(7, 8, bit(6))
    grid.set(8, 8, bit(7))
    grid.set(8, 7, bit(8))
    for i in range(9, 15):
        grid.set(8, 14 - i, bit(i))
    for i in range(8):
        grid.set(8, SIZE - 1 - i, bit(i))
    for i in range(8, 15):
        grid.set(SIZE - 15 + i, 8, bit(i))
    grid.set(SIZE - 8, 8, True)                   # the dark module


def _place_data(grid: _Grid, codewords: list[int]) -> None:
    bits = [(word >> (7 - k)) & 1 for word in codewords for k in range(8)]
    index = 0
    right = SIZE - 1
    while right >= 1:
        if right == 6:
            right = 5
        upward = ((right + 1) & 2) == 0
        for step in range(SIZE):
            row = SIZE - 1 - step if upward else step
            for col in (right, right - 1):
                if not grid.function[row][col]:
                    grid.dark[row][col] = index < len(bits) and bits[index] == 1
                    index += 1
        right -= 2


_MASKS = (
    lambda r, c: (r + c) % 2 == 0,
    lambda r, c: r % 2 == 0,
    lambda r, c: c % 3 == 0,
    lambda r, c: (r + c) % 3 == 0,
    lambda r, c: (r // 2 + c // 3) % 2 == 0,
    lambda r, c: (r * c) % 2 + (r * c) % 3 == 0,
    lambda r, c: ((r * c) % 2 + (r * c) % 3) % 2 == 0,
    lambda r, c: ((r + c) % 2 + (r * c) % 3) % 2 == 0,
)


def _apply_mask(grid: _Grid, mask: int) -> Matrix:
    test = _MASKS[mask]
    return [[grid.dark[r][c] ^ (not grid.function[r][c] and test(r, c)) for c in range(SIZE)]
            for r in range(SIZE)]


def penalty(matrix: Matrix) -> int:
    """The standard's penalty score; the encoder keeps the mask with the lowest."""
    score = 0
    lines = [list(row) for row in matrix] + [list(col) for col in zip(*matrix)]
    finder_like = ([True, False, True, True, True, False, True, False, False, False, False],
                   [False, False, False, False, True, False, True, True, True, False, True])
    for line in lines:
        run = 1
        for k in range(1, len(line) + 1):
            if k < len(line) and line[k] == line[k - 1]:
                run += 1
                continue
            if run >= 5:
                score += 3 + run - 5
            run = 1
        for k in range(len(line) - 10):
            if line[k:k + 11] in finder_like:
                score += 40
    for r in range(SIZE - 1):
        for c in range(SIZE - 1):
            if matrix[r][c] == matrix[r][c + 1] == matrix[r + 1][c] == matrix[r + 1][c + 1]:
                score += 3
    dark = sum(map(sum, matrix))
    score += 10 * (abs(dark * 100 // (SIZE * SIZE) - 50) // 5)
    return score


def encode(payload: bytes | str) -> Matrix:
    """The QR matrix of ``payload`` (str is UTF-8 encoded); ValueError when too long."""
    data = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    words = _data_codewords(data)
    message = words + reed_solomon(words)
    best: Matrix | None = None
    best_score = -1
    for mask in range(8):
        grid = _Grid()
        _draw_function_patterns(grid)
        _place_data(grid, message)
        _draw_format(grid, mask)
        matrix = _apply_mask(grid, mask)
        score = penalty(matrix)
        if best is None or score < best_score:
            best, best_score = matrix, score
    assert best is not None
    return best
