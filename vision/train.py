"""Fit the built-in square model (vision/square_model.json) on rendered frames.

    python -m vision.train [--frames N]

The frames use seeds far from the tests' and the benchmark's, so neither is
scored on what the model was fitted to.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from calibration.config import Config
from vision.classifier import MODEL_PATH, SquareClassifier
from vision.features import FEATURE_NAMES
from vision.labelled import labelled_frames
from vision.localise import NotReadable
from vision.position import SquareClass
from vision.reader import BoardReader

TRAIN_SEED0 = 5_000_000


def collect(frames: int, config: Config | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    config = config or Config()
    d = len(FEATURE_NAMES)
    placeholder = SquareClassifier(np.zeros((4, d)), np.array([np.eye(d)] * 4), np.full(4, 0.25))
    readers = {b: BoardReader(config, b, classifier=placeholder) for b in ("board-11", "board-9")}
    X, y, marked = [], [], []
    for lf in labelled_frames(range(TRAIN_SEED0, TRAIN_SEED0 + frames), ("clean", "museum", "hard", "museum")):
        reader = readers[lf.board]
        try:
            view, rect = reader.locate(lf.rendered.image)
        except NotReadable:
            continue
        feats = reader.extractor.extract(rect, view.camera_center)
        X.append(feats.values)
        marked.append(reader.marked)
        y.append([int(SquareClass.from_letter(lf.rendered.pieces.get(sq))) for sq in range(reader.size ** 2)])
    return np.vstack(X), np.concatenate(y), np.concatenate(marked)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=160)
    ap.add_argument("--out", default=str(MODEL_PATH))
    ap.add_argument("--save-samples", help="also keep the feature samples (.npz) for study")
    args = ap.parse_args(argv)
    X, y, marked = collect(args.frames)
    if args.save_samples:
        np.savez_compressed(args.save_samples, X=X, y=y, marked=marked)
    model = SquareClassifier.fit(X, y, marked)
    model.save(args.out)
    counts = np.bincount(y, minlength=4)
    print(f"fitted on {len(y)} squares ({', '.join(f'{c.name.lower()} {n}' for c, n in zip(SquareClass, counts))})"
          f" -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
