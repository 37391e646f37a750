"""The reader's short cuts for speed give the same numbers as the long way (issue 15: 30 ms a frame).

vision/robust.nanmedian and median stand in for np.nanmedian and np.median on
short rows, and the reader hands the hand check and the outline the grey
picture and its pixel noise it measured once; each must give exactly what it
replaced, on a real rendered frame (bench/foreign_renderer.py, hard light:
glare, dim, noisy). The veil taken off in whole levels (vision/glare.py
GlareEstimator.remove) is the float subtraction's floor.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import Board  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.glare import GlareEstimator  # noqa: E402
from vision.robust import median, nanmedian, row_percentile  # noqa: E402
from vision.shape import NOISE_SIGMA, NOISE_STRIDE, pixel_noise  # noqa: E402

SEED = 12_345_017     # a development seed (below 20,000,000)


@pytest.mark.parametrize("shape, axis", [((60, 4), 1), ((25, 11, 11), 0), ((7, 1), 1), ((5, 6), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nanmedian_is_numpys(shape: tuple[int, ...], axis: int, dtype: type) -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        a: np.ndarray = (rng.normal(size=shape) * 40 + 120).astype(dtype)
        a[rng.random(shape) < rng.random()] = np.nan        # some rows hold a few numbers, some none
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns on an all-NaN row
            want = np.nanmedian(a, axis)
        got = nanmedian(a, axis)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want, equal_nan=True)


@pytest.fixture(scope="module")
def hard_frame() -> tuple[BoardReader, np.ndarray, np.ndarray]:
    reader = BoardReader(Config(), "board-11")
    image = foreign_renderer.render("board-11", Board("copenhagen").position_otn(), seed=SEED, condition="hard")
    view, rect = reader.locate(image, track=False)
    feats = reader.extractor.extract(rect, view.camera_center)
    return reader, rect, feats.top_px


def test_pixel_noise_is_the_whole_pictures(hard_frame: tuple[BoardReader, np.ndarray, np.ndarray]) -> None:
    _, rect, _ = hard_frame
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    g = gray.astype(np.float32)
    fine = g - cv2.GaussianBlur(g, (0, 0), NOISE_SIGMA)          # the whole picture differenced, then sampled
    assert pixel_noise(gray) == float(1.4826 * np.median(np.abs(fine[::NOISE_STRIDE, ::NOISE_STRIDE])))
    assert pixel_noise(gray) > 0.5                               # a noisy frame: the check is not of zeros


def test_noise_handed_over_changes_nothing(hard_frame: tuple[BoardReader, np.ndarray, np.ndarray]) -> None:
    reader, rect, tops = hard_frame
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    noise = pixel_noise(gray)
    own, given = reader.grid.check(gray), reader.grid.check(gray, noise)
    assert np.array_equal(own.hidden, given.hidden) and np.array_equal(own.contrast, given.contrast)
    a, b = reader.outline.measure(gray, tops), reader.outline.measure(gray, tops, noise=noise)
    assert a.noise == b.noise and np.array_equal(a.fall, b.fall) and np.array_equal(a.lift, b.lift)
    plain = reader.extractor.extract(rect, None)
    handed = reader.extractor.extract(rect, None, gray=gray)
    assert np.array_equal(plain.values, handed.values)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("q", [0.0, 15.0, 30, 50.0, 70, 85.0, 100.0])
def test_row_percentile_is_numpys(dtype, q):
    rng = np.random.default_rng(int(q) + 7)
    for n in (1, 2, 5, 24, 28, 41):
        a = (rng.random((60, n)) * 255).astype(dtype)
        a[::3] = np.round(a[::3])                     # ties, as grey levels give
        want = np.percentile(a, q, axis=1)
        got = row_percentile(a, q)
        assert got.dtype == want.dtype
        assert np.array_equal(got, want), f"n={n}: {np.max(np.abs(got - want))}"


@pytest.mark.parametrize("shape, axis", [((121, 109, 3), 1), ((121, 188, 3), 1), ((121, 188), 1), ((121, 16), 1),
                                         ((9, 4), 0), ((5, 1), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_median_is_numpys(shape: tuple[int, ...], axis: int, dtype: type) -> None:
    rng = np.random.default_rng(11)
    for _ in range(10):
        a: np.ndarray = (rng.normal(size=shape) * 40 + 120).astype(dtype)
        a[rng.random(shape) < 0.3] = 97.0                    # ties, as grey levels give
        want, got = np.median(a, axis), median(a, axis)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)


def test_the_veil_taken_off_in_whole_levels_is_the_float_subtraction_s_floor(
        hard_frame: tuple[BoardReader, np.ndarray, np.ndarray]) -> None:
    reader, rect, _ = hard_frame
    glare = reader.glare.estimate(rect)
    assert glare.any and glare.image.max() > 20.0                # a strong veil: the check is not of zeros
    want = np.floor(np.clip(rect.astype(np.float64) - glare.image[..., None], 0, 255))
    got = GlareEstimator.remove(rect, glare)
    assert got.dtype == np.uint8 and got.shape == rect.shape
    assert np.array_equal(got, want)
