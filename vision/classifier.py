"""Square classes from square features: one Gaussian per class, that keeps learning.

A Gaussian per class (empty, attacker, defender, king) over the
light-independent features of vision.features, plus a fifth for an empty
*marked* square (throne, corners, camps): its darker fill sits next to
plain wood, and the camera's chroma subsampling tints its corners, so bare
marked squares look a little different from bare plain ones. Which squares
are marked is known from the board, so they simply use that empty model.

The built-in model (square_model.json, made by `python -m vision.train`) is
fitted on rendered frames whose materials, light and camera are drawn at
random across the hardware spec, so it works cold on a single image. During
a game every confirmed position is a labelled sample of this very board in
this light: `learn()` folds it in, with a pseudo-count that keeps the
built-in model as a prior and a slow forgetting so the model follows the
daylight.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.features import FEATURE_NAMES
from vision.position import SquareClass

MODEL_PATH = Path(__file__).with_name("square_model.json")
CLASSES = tuple(SquareClass)
EMPTY_MARKED = len(CLASSES)          # index of the fifth model
MODEL_NAMES = [c.name.lower() for c in CLASSES] + ["empty_marked"]


@dataclass
class ClassStats:
    """Sufficient statistics of one class: weight, sum and scatter."""

    n: float
    total: np.ndarray
    scatter: np.ndarray

    @classmethod
    def from_gaussian(cls, mean, cov, n: float) -> "ClassStats":
        mean, cov = np.asarray(mean, np.float64), np.asarray(cov, np.float64)
        return cls(n, mean * n, (cov + np.outer(mean, mean)) * n)

    @property
    def mean(self) -> np.ndarray:
        return self.total / self.n

    @property
    def cov(self) -> np.ndarray:
        m = self.mean
        return self.scatter / self.n - np.outer(m, m)


def model_index(labels: np.ndarray, marked: np.ndarray | None) -> np.ndarray:
    """Which of the five Gaussians describes each labelled square."""
    idx = np.asarray(labels, np.int64).copy()
    if marked is not None:
        idx[(idx == int(SquareClass.EMPTY)) & np.asarray(marked, bool)] = EMPTY_MARKED
    return idx


class SquareClassifier:
    """Per-square class probabilities, with a prior model and in-game learning."""

    def __init__(self, means: np.ndarray, covs: np.ndarray, priors: np.ndarray, *,
                 prior_weight: float = 60.0, forget: float = 0.995, min_var: float = 1e-4,
                 keep_spread: float = 0.5):
        self.prior_means = np.asarray(means, np.float64)
        self.prior_covs = np.asarray(covs, np.float64)
        if len(self.prior_means) == len(CLASSES):            # a model without the marked-empty class
            self.prior_means = np.vstack([self.prior_means, self.prior_means[:1]])
            self.prior_covs = np.concatenate([self.prior_covs, self.prior_covs[:1]])
        self.priors = np.asarray(priors, np.float64)
        self.prior_weight = prior_weight
        self.forget = forget
        self.min_var = min_var
        # Learning sharpens the means but keeps this share of the built-in spread:
        # a game's few hundred squares never show every shadow and glint, and a
        # class grown too narrow would hand every odd square to the broadest one.
        self.keep_spread = keep_spread
        self.reset()

    @classmethod
    def load(cls, path: Path | str = MODEL_PATH, **kw) -> "SquareClassifier":
        data = json.loads(Path(path).read_text())
        if tuple(data["features"]) != FEATURE_NAMES:
            raise ValueError(f"{path}: model features {data['features']} do not match {list(FEATURE_NAMES)}")
        return cls(np.array(data["means"]), np.array(data["covs"]), np.array(data["priors"]), **kw)

    @classmethod
    def fit(cls, X: np.ndarray, y: np.ndarray, marked: np.ndarray | None = None, *, shrink: float = 0.05,
            inflate: float = 1.3) -> "SquareClassifier":
        """Fit the prior model. `inflate` widens each class so an unseen look is not overconfident."""
        d = X.shape[1]
        idx = model_index(y, marked)
        means, covs = [], []
        for k, name in enumerate(MODEL_NAMES):
            Xc = X[idx == k]
            if len(Xc) < d + 2:
                raise ValueError(f"too few samples of class {name} to fit: {len(Xc)}")
            C = np.cov(Xc, rowvar=False)
            C = (1 - shrink) * C + shrink * np.diag(np.diag(C))
            means.append(Xc.mean(0))
            covs.append(C * inflate)
        priors = np.bincount(np.asarray(y, np.int64), minlength=len(CLASSES)).astype(np.float64)
        return cls(np.array(means), np.array(covs), priors / priors.sum())

    def save(self, path: Path | str = MODEL_PATH) -> None:
        data = {"features": list(FEATURE_NAMES), "models": MODEL_NAMES,
                "means": self.prior_means.round(6).tolist(), "covs": self.prior_covs.round(8).tolist(),
                "priors": self.priors.round(6).tolist()}
        Path(path).write_text(json.dumps(data, indent=1) + "\n")

    def reset(self) -> None:
        """Forget what this game taught (a new board, a new day)."""
        self.stats = [ClassStats.from_gaussian(m, c, self.prior_weight)
                      for m, c in zip(self.prior_means, self.prior_covs)]
        self._refresh()

    def _refresh(self) -> None:
        d = self.prior_means.shape[1]
        self._means = np.array([s.mean for s in self.stats])
        covs = []
        for s, prior in zip(self.stats, self.prior_covs):
            C = (1 - self.keep_spread) * s.cov + self.keep_spread * prior
            C = (C + C.T) / 2 + np.eye(d) * self.min_var
            covs.append(C)
        self._inv = np.array([np.linalg.inv(C) for C in covs])
        self._logdet = np.array([np.linalg.slogdet(C)[1] for C in covs])

    @property
    def samples_learned(self) -> float:
        return float(sum(s.n for s in self.stats) - self.prior_weight * len(self.stats))

    def log_likelihoods(self, X: np.ndarray, marked: np.ndarray | None = None) -> np.ndarray:
        """(squares, 4) log p(features | class), Gaussian; marked squares use the marked-empty model."""
        diff = X[:, None, :] - self._means[None]
        maha = np.einsum("sci,cij,scj->sc", diff, self._inv, diff)
        ll = -0.5 * (maha + self._logdet[None] + X.shape[1] * np.log(2 * np.pi))
        out = ll[:, :len(CLASSES)].copy()
        if marked is not None:
            m = np.asarray(marked, bool)
            out[m, int(SquareClass.EMPTY)] = ll[m, EMPTY_MARKED]
        return out

    def probabilities(self, X: np.ndarray, marked: np.ndarray | None = None, one_king: bool = True) -> np.ndarray:
        """(squares, 4) posterior probabilities; at most one square keeps the king's share."""
        ll = self.log_likelihoods(X, marked) + np.log(self.priors)[None]
        ll -= ll.max(1, keepdims=True)
        p = np.exp(ll)
        p /= p.sum(1, keepdims=True)
        if one_king and len(p):
            k = int(SquareClass.KING)
            best = int(np.argmax(p[:, k]))
            others = np.ones(len(p), bool)
            others[best] = False
            p[others, int(SquareClass.DEFENDER)] += p[others, k]
            p[others, k] = 0.0
        return p

    def learn(self, X: np.ndarray, labels: np.ndarray, marked: np.ndarray | None = None) -> None:
        """Fold a confirmed position's squares into the class statistics."""
        idx = model_index(labels, marked)
        for k, s in enumerate(self.stats):
            extra = s.n - self.prior_weight
            if extra > 0:            # older in-game samples fade, the prior stays
                keep = self.prior_weight + extra * self.forget
                s.total *= keep / s.n
                s.scatter *= keep / s.n
                s.n = keep
            Xc = X[idx == k]
            if len(Xc):
                s.n += len(Xc)
                s.total = s.total + Xc.sum(0)
                s.scatter = s.scatter + Xc.T @ Xc
        self._refresh()
