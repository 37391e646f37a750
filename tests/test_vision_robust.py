"""The reader's short cuts for speed give the same numbers as the long way (issue 15: 30 ms a frame).

vision/robust.nanmedian and median stand in for np.nanmedian and np.median on
short rows, and the reader hands the hand check and the outline the grey
picture and its pixel noise it measured once; each must give exactly what it
replaced, on a real rendered frame (bench/foreign_renderer.py, hard light:
glare, dim, noisy). The veil taken off in whole levels (vision/glare.py
GlareEstimator.remove) is the float subtraction's floor. The channels' histograms
(vision/white_point.histograms), the channel means (robust.mean_last) and the
sample indices the extractor and the outline meter keep for the next frame give
what they replaced, and a kept index is never one for other tops.
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
from vision.robust import mean_last, median, nanmedian, row_percentile  # noqa: E402
from vision.shape import NOISE_SIGMA, NOISE_STRIDE, OutlineMeter, fine_detail, pixel_noise  # noqa: E402
from vision.white_point import SUBSAMPLE, histograms  # noqa: E402

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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_last_is_numpys(dtype: type) -> None:
    rng = np.random.default_rng(5)
    rays: np.ndarray = (rng.random((121, 24, 13)) * 255).astype(dtype)
    for n in range(1, 8):
        for a in (rays[..., :n], rays[..., -n:], np.ascontiguousarray(rays[..., :n])):
            want, got = a.mean(-1), mean_last(a)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(got, want)


def test_fine_detail_is_the_whole_pictures_difference(hard_frame: tuple[BoardReader, np.ndarray, np.ndarray]) -> None:
    _, rect, _ = hard_frame
    g = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    want = np.abs(g - cv2.GaussianBlur(g, (0, 0), NOISE_SIGMA))
    got = fine_detail(g.astype(np.uint8))
    assert got.dtype == want.dtype and np.array_equal(got, want) and want.max() > 5.0


def test_histograms_count_every_other_pixel(hard_frame: tuple[BoardReader, np.ndarray, np.ndarray]) -> None:
    _, rect, _ = hard_frame
    for picture in (rect, rect[:301, :299], rect[1:, 3:]):         # odd sizes and a view into the picture
        got = histograms(picture)
        for c in range(3):
            want = np.bincount(picture[..., c].ravel()[::SUBSAMPLE], minlength=256)
            assert np.array_equal(got[c], want)
    dark = rect.reshape(1, -1, 3)[:, ::7, 1]
    assert float(row_percentile(dark, 95)[0]) == float(np.percentile(dark, 95))    # uint8, as the reader's check


def _same_outline(a, b) -> bool:
    from dataclasses import fields
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "lit_moved":
            if not all(np.array_equal(getattr(x, g.name), getattr(y, g.name), equal_nan=True) for g in fields(x)):
                return False
        elif not np.array_equal(x, y, equal_nan=True):
            return False
    return True


def test_kept_indices_are_those_of_the_tops_asked_for(hard_frame: tuple[BoardReader, np.ndarray, np.ndarray]) -> None:
    """The outline meter and the extractor keep the sample indices round the last tops (a still camera asks
    for them again; the outline meter's moved sets are kept for every square from the second time on); tops
    that move (the board's pose, a camera moved) must be measured round themselves."""
    reader, rect, tops = hard_frame
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    everywhere = np.ones(len(tops), bool)

    def measure(meter: OutlineMeter, at: np.ndarray):
        return meter.measure(gray, at, reader.wood_px, reader.extractor.centres_px, search=everywhere, colour=rect,
                             near_white=everywhere)
    moved = tops + np.array([1.3, -0.6])
    for at in (tops, tops, tops, moved, moved, tops, moved.astype(np.float32)):    # new, again (kept), moved
        fresh = BoardReader(Config(), "board-11")
        assert _same_outline(measure(reader.outline, at), measure(fresh.outline, at))
    view, _ = reader.locate(foreign_renderer.render("board-11", Board("copenhagen").position_otn(), seed=SEED,
                                                    condition="hard"), track=False)
    for centre in (view.camera_center, view.camera_center + np.array([40.0, -25.0, 0.0]), view.camera_center, None):
        fresh = BoardReader(Config(), "board-11")
        want = fresh.extractor.extract(rect, centre)
        got = reader.extractor.extract(rect, centre)
        assert np.array_equal(got.values, want.values) and np.array_equal(got.top_px, want.top_px)
