"""CPU time of the vision reader per frame on the independent renderer, two ways (issue 15: 30 ms a frame).

WHY: `tafl-vision bench` times the reader on our own renderer only; the
foreign renderer's hard light makes the marker search and the glare steps
work harder. The kiosk and the CLI also read differently: the CLI makes a
fresh BoardReader per picture (no tracking), the kiosk keeps one reader on a
still board and tracks the markers from the last picture. Both are timed
here (CPU time, time.process_time, one OpenCV thread):

  (a) as `tafl-vision read`: a fresh BoardReader per frame, track=False, on
      the frames bench/foreign_vision.py scores (frame k: seed seed0+1000k+17);
  (b) as the kiosk live: one BoardReader per scene reading `--pictures`
      consecutive pictures of the same still scene (the scene of frame k, a new
      sensor noise and onlooker each picture, as foreign_vision.score_games'
      `picture()`), track=True; the first picture of each scene (nothing to
      track yet) is not timed.

    python bench/reader_speed.py --condition hard --condition museum --frames 30 --seed0 10000000

`--dump FILE` also reads `--check-frames` frames and `--hands` hand frames per
condition both ways and saves every reading (class probabilities, or the
NotReadable reason); `--compare FILE` checks a later run against it, so a
change made for speed is shown not to change any reading. Rendered pictures
are kept in `--cache DIR` (rendering takes longer than reading).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Iterator

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402


def _cached(cache: Path | None, name: str, make) -> np.ndarray:
    """A rendered picture from the cache directory, rendered and stored when missing."""
    if cache is None:
        return make()
    path = cache / f"{name}.npy"
    if path.exists():
        return np.load(path)
    image = make()
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, image)
    return image


def frames(condition: str, n: int, seed0: int, cache: Path | None) -> Iterator[tuple[str, str, np.ndarray]]:
    """(name, board, picture) of foreign_vision.score_frames' frames, in its order."""
    for k, s in enumerate(foreign_vision.frame_samples(condition, n, seed0)):
        seed = foreign_vision.frame_seed(seed0, k)
        yield (f"{condition}-{seed}", s.board,
               _cached(cache, f"{condition}-{seed}",
                       lambda s=s, seed=seed: foreign_vision.render_frame(s, condition, seed)))


def hand_frames(condition: str, n: int, seed0: int, cache: Path | None) -> Iterator[tuple[str, str, np.ndarray]]:
    """(name, board, picture) of foreign_vision.score_hands' frames (a visitor's arm over the board)."""
    for k, s in enumerate(foreign_vision.frame_samples(condition, n, seed0, arm=True)):
        seed = foreign_vision.frame_seed(seed0, k, arm=True)
        yield (f"{condition}-hand-{seed}", s.board,
               _cached(cache, f"{condition}-hand-{seed}",
                       lambda s=s, seed=seed: foreign_vision.render_frame(s, condition, seed, arm=True)))


def scenes(condition: str, n: int, pictures: int, seed0: int,
           cache: Path | None) -> Iterator[tuple[str, str, list[np.ndarray]]]:
    """(name, board, pictures) of the still scene of each of the first n frames: new sensor noise each picture."""
    for k, s in enumerate(foreign_vision.frame_samples(condition, n, seed0)):
        scene = foreign_vision.frame_seed(seed0, k)
        prepared = None
        shots = []
        for i in range(pictures):
            def make(i=i, s=s, scene=scene) -> np.ndarray:
                nonlocal prepared
                if prepared is None:
                    prepared = foreign_renderer.prepare(s.board, s.position, condition, scene_seed=scene)
                return foreign_renderer.expose(prepared, seed=scene + 10_000 * (i + 1))
            shots.append(_cached(cache, f"{condition}-scene-{scene}-{i}", make))
        yield f"{condition}-scene-{scene}", s.board, shots


def read_once(reader, image: np.ndarray, track: bool) -> tuple[float, np.ndarray | str]:
    """CPU ms of one read and what it gave: the class probabilities or the NotReadable reason."""
    from vision.localise import NotReadable
    c0 = time.process_time()
    try:
        out: np.ndarray | str = reader.read(image, track=track).probabilities
    except NotReadable as exc:
        out = str(exc)
    return (time.process_time() - c0) * 1000, out


def cli_reads(items, config) -> Iterator[tuple[str, float, np.ndarray | str]]:
    """(a): a fresh BoardReader per frame (its construction timed too, as the CLI pays it), track=False."""
    from vision.reader import BoardReader
    for name, board, image in items:
        c0 = time.process_time()
        reader = BoardReader(config, board)
        build = (time.process_time() - c0) * 1000
        ms, out = read_once(reader, image, track=False)
        yield name, build + ms, out


def live_reads(items, config) -> Iterator[tuple[str, float | None, np.ndarray | str]]:
    """(b): one BoardReader per still scene, track=True; the first picture (nothing tracked yet) untimed."""
    from vision.reader import BoardReader
    for name, board, shots in items:
        reader = BoardReader(config, board)
        for i, image in enumerate(shots):
            ms, out = read_once(reader, image, track=True)
            yield f"{name}-{i}", (ms if i else None), out


def figures(ms: list[float]) -> str:
    a = np.array(ms)
    return f"CPU time median {np.median(a):.1f} ms, p95 {np.percentile(a, 95):.1f} ms ({len(a)} reads)"


def compare(saved: dict[str, np.ndarray | str], now: dict[str, np.ndarray | str]) -> list[str]:
    """Readings that differ: another reason, or probabilities not within 1e-9."""
    out = []
    for key in sorted(set(saved) | set(now)):
        a, b = saved.get(key), now.get(key)
        if a is None or b is None:
            out.append(f"{key}: only in one run")
        elif isinstance(a, str) or isinstance(b, str):
            if not (isinstance(a, str) and isinstance(b, str) and a == b):
                out.append(f"{key}: {a if isinstance(a, str) else 'read'} -> {b if isinstance(b, str) else 'read'}")
        elif a.shape != b.shape or not np.allclose(a, b, rtol=0, atol=1e-9):
            out.append(f"{key}: probabilities differ (max {np.abs(a - b).max():.2e})")
    return out


def load_readings(path: Path) -> dict[str, np.ndarray | str]:
    data = np.load(path, allow_pickle=False)
    return {k[2:]: (str(data[k]) if k.startswith("r:") else data[k]) for k in data.files}


def save_readings(path: Path, readings: dict[str, np.ndarray | str]) -> None:
    arrays: dict[str, np.ndarray] = {("r:" if isinstance(v, str) else "p:") + k: np.array(v)
                                     for k, v in readings.items()}
    np.savez(path, allow_pickle=False, **arrays)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="CPU time of the vision reader per frame, as the CLI and as the kiosk.")
    ap.add_argument("--condition", action="append", choices=foreign_renderer.CONDITIONS)
    ap.add_argument("--frames", type=int, default=30, help="frames timed per condition, as the CLI")
    ap.add_argument("--scenes", type=int, default=10, help="still scenes per condition read live")
    ap.add_argument("--pictures", type=int, default=4, help="pictures per still scene (the first untimed)")
    ap.add_argument("--seed0", type=int, default=10_000_000)
    ap.add_argument("--cache", type=Path, help="directory keeping the rendered pictures")
    ap.add_argument("--dump", type=Path, help="save every reading (npz) for --compare")
    ap.add_argument("--compare", type=Path, help="check every reading against a --dump file")
    ap.add_argument("--check-frames", type=int, default=60, help="with --dump/--compare: frames per condition")
    ap.add_argument("--hands", type=int, default=20, help="with --dump/--compare: hand frames per condition")
    args = ap.parse_args(argv)
    import cv2
    from vision.cli import _config
    cv2.setNumThreads(1)
    config = _config(None)
    checking = args.dump is not None or args.compare is not None
    readings: dict[str, np.ndarray | str] = {}
    for condition in args.condition or ["hard", "museum"]:
        n = max(args.frames, args.check_frames if checking else 0)
        cli = [(name, ms, out) for name, ms, out in
               cli_reads(frames(condition, n, args.seed0, args.cache), config)]
        print(f"{condition}, (a) as the CLI (fresh reader, track=False), seeds {args.seed0}: "
              + figures([ms for _, ms, _ in cli[:args.frames]]), flush=True)
        live = list(live_reads(scenes(condition, args.scenes, args.pictures, args.seed0, args.cache), config))
        print(f"{condition}, (b) as the kiosk ({args.scenes} still scenes x {args.pictures} pictures, track=True): "
              + figures([ms for _, ms, _ in live if ms is not None]), flush=True)
        if checking:
            hands = list(cli_reads(hand_frames(condition, args.hands, args.seed0, args.cache), config))
            for name, _, out in cli + hands + live:
                readings[name] = out
    if args.dump is not None:
        save_readings(args.dump, readings)
        print(f"{len(readings)} readings saved to {args.dump}")
    if args.compare is not None:
        diff = compare(load_readings(args.compare), readings)
        print(f"{len(readings)} readings compared with {args.compare}: "
              + ("all identical" if not diff else f"{len(diff)} differ"))
        for line in diff:
            print("  " + line)
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
