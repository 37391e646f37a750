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

Cold, on one frame of a board the model has never seen, the frame itself is
the reference: the class means move to where this frame's sure squares of
each class sit (`frame_means`), and the king is found as the one light piece
clearly yellower on top than the others (`_king_by_crown`). Squares unlike
every class, or in near-clipped glare, get flatter probabilities, so the
move inference holds back rather than trusting a guess.
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

# Mahalanobis distance (squared) beyond which a square is "unlike every class":
# the chi-square 99.9% point for 9 features is 27.9.
OUTLIER_DISTANCE = 28.0
# Per-frame adaptation of the class means (SquareClassifier.frame_means).
ADAPT_ROUNDS = 2
ADAPT_SURE = 0.9                    # posterior a square needs to speak for its class
ADAPT_PSEUDO_COUNT = 3.0            # sure squares worth as much as the model's mean
# The king among the light pieces (SquareClassifier._king_by_crown).
GOLD_FEATURE = FEATURE_NAMES.index("gold")
KING_MIN_LIGHT = 4                  # light pieces needed to compare crowns
KING_CANDIDATE = 0.75               # light share (after the disc check) a square needs to be one of them
KING_GAP = 0.2                      # log(B/R) the king's top lies below the other light pieces'
KING_SPREADS = 5.0                  # ... and this many times their own spread
KING_SURE = 0.97                    # king's share when the gap is clear
KING_DOUBT = 0.6                    # ... when it is only half as clear, or the king may be unseen
KING_HIDING = 0.25                  # light share of a square left out of the comparison that may hide the king
KING_FOUND = 0.5                    # a square with this king's share is where the king stands
KING_RIVAL_SURE = 0.75              # a square that had KING_FOUND of the king's share and lost him: at most this sure
# A king's crown plainly in his top's middle (vision/features.crown_centred, log(B/R) of the ring minus the
# centre): the held-out renderer's hard development frames gave kings 0.28 (median; 5th percentile 0.02),
# defenders -0.06 (99th percentile 0.04).
CROWN_PLAIN = 0.1
# ... and one whose top's middle is not goldener than its ring by this much shows no crown
CROWN_CENTRED = 0.0
KING_HIDDEN = 0.15                  # king's share of every light piece when no square holds him
KING_GUESS_GAP = 0.1                # ... unless one light piece's top is this much yellower (log B/R) than the next
KING_GUESS = 0.55                   # ... which then keeps this share of its light as the king's (a guess, held back)
THRONE_KING_GUESS = 0.8             # ... or, failing a yellowest top, the light piece on the throne (still held back)
ADAPT_MIN_SQUARES = {int(SquareClass.EMPTY): 6, int(SquareClass.ATTACKER): 3, int(SquareClass.DEFENDER): 3,
                     EMPTY_MARKED: 3}   # model index -> sure squares needed to move it


def no_surer_than(probs: np.ndarray, cap: np.ndarray | float) -> np.ndarray:
    """Each row moved towards uniform just so far that its largest share is at most `cap` (per row, or one for all).

    The order of the classes (the best guess) stays; only the certainty goes.
    """
    uniform = 1.0 / probs.shape[1]
    top = probs.max(1)
    t = np.where(top > cap, (np.maximum(cap, uniform) - uniform) / np.maximum(top - uniform, 1e-9), 1.0)
    return uniform + t[:, None] * (probs - uniform)


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

    def _log_likelihoods(self, X: np.ndarray, marked: np.ndarray | None,
                         means: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Log-likelihoods and Mahalanobis distances (squares, 4), marked squares on the marked-empty model."""
        diff = X[:, None, :] - (self._means if means is None else means)[None]
        maha = np.einsum("sci,cij,scj->sc", diff, self._inv, diff)
        ll = -0.5 * (maha + self._logdet[None] + X.shape[1] * np.log(2 * np.pi))
        out = ll[:, :len(CLASSES)].copy()
        dist = maha[:, :len(CLASSES)].copy()
        if marked is not None:
            m = np.asarray(marked, bool)
            out[m, int(SquareClass.EMPTY)] = ll[m, EMPTY_MARKED]
            dist[m, int(SquareClass.EMPTY)] = maha[m, EMPTY_MARKED]
        return out, dist

    def _posterior(self, ll: np.ndarray, dist: np.ndarray, temper: np.ndarray | None = None) -> np.ndarray:
        """Posterior from log-likelihoods, flattened for squares unlike every class.

        A square whose nearest class is still far out (Mahalanobis distance
        beyond OUTLIER_DISTANCE) looks like nothing the model knows: the
        Gaussians' ratio there says little, so its log-likelihoods are divided
        by how far out it is. Such a square then reads with low confidence and
        the move inference holds back instead of trusting it. `temper`
        (per square, >= 1) flattens further for what the caller knows is
        hard to see (glare).
        """
        far = np.maximum(1.0, dist.min(1) / OUTLIER_DISTANCE)
        if temper is not None:
            far = far * np.maximum(1.0, temper)
        ll = (ll + np.log(self.priors)[None]) / far[:, None]
        ll -= ll.max(1, keepdims=True)
        p = np.exp(ll)
        return p / p.sum(1, keepdims=True)

    def frame_means(self, X: np.ndarray, marked: np.ndarray | None = None, rounds: int = ADAPT_ROUNDS) -> np.ndarray:
        """Class means moved towards what this very frame shows (5 x features).

        The model's means come from rendered frames and earlier positions; one
        board in one light differs (another wood, ivory or lacquer, a sheen on
        the tops). Most squares of a frame are read without doubt, so the
        median of each class's sure squares says where that class sits *here*;
        the means move there, in proportion to how many sure squares back it
        (ADAPT_PSEUDO_COUNT keeps a few squares from dragging a class far).
        The king, alone of his kind, moves with the defenders, whose body he
        shares. Only the means move: the spreads stay the model's.
        """
        means = self._means.copy()
        m = np.zeros(len(X), bool) if marked is None else np.asarray(marked, bool)
        for _ in range(rounds):
            ll, dist = self._log_likelihoods(X, m, means)
            p = self._posterior(ll, dist)
            label = p.argmax(1)
            sure = p.max(1) >= ADAPT_SURE
            idx = model_index(label, m)
            new = self._means.copy()
            for k, need in ADAPT_MIN_SQUARES.items():
                pick = sure & (idx == k)
                n = int(pick.sum())
                if n >= need:
                    w = n / (n + ADAPT_PSEUDO_COUNT)
                    new[k] = self._means[k] + w * (np.median(X[pick], 0) - self._means[k])
            king, defender = int(SquareClass.KING), int(SquareClass.DEFENDER)
            new[king] = self._means[king] + (new[defender] - self._means[defender])
            means = new
        return means

    def probabilities(self, X: np.ndarray, marked: np.ndarray | None = None, one_king: bool = True,
                      adapt: bool = True, temper: np.ndarray | None = None,
                      crown: np.ndarray | None = None, light_keep: np.ndarray | None = None) -> np.ndarray:
        """(squares, 4) posterior probabilities; at most one square keeps the king's share.

        `adapt` first moves the class means to this frame (`frame_means`);
        `temper` (per square, >= 1) lowers the confidence of squares seen badly;
        `crown` is the gold feature against plain wood (vision.features), used
        to pick the king out among the light pieces; `light_keep` (0..1, vision.shape.light_keep)
        how much of a light piece's reading the disc the camera saw allows: a
        king is picked by his crown only among squares that are plainly light pieces.
        """
        means = self.frame_means(X, marked) if adapt and len(X) else None
        ll, dist = self._log_likelihoods(X, marked, means)
        p = self._posterior(ll, dist, temper)
        if adapt and len(X):
            p = self._king_by_crown(X[:, GOLD_FEATURE] if crown is None else crown, p, light_keep)
        if one_king and len(p):
            p = self.hidden_king(self.one_king(p))
        return p

    @staticmethod
    def one_king(p: np.ndarray) -> np.ndarray:
        """At most one square keeps the king's share: the likeliest; the others' goes to the defender.

        A square that read about as likely the king (KING_FOUND of the share) as the one that keeps him
        is then no sure defender: at most KING_RIVAL_SURE, its best guess kept. Hard light, development
        seeds 13,038,017: the king on c10, picked by his crown only with doubt, lost him to a green-lit
        defender whose colour read 0.95 king, and was read a sure defender (0.99).
        """
        k = int(SquareClass.KING)
        others = np.ones(len(p), bool)
        others[int(np.argmax(p[:, k]))] = False
        return SquareClassifier._lose_king(p, others, others & (p[:, k] >= KING_FOUND))

    @staticmethod
    def second_kings(p: np.ndarray) -> np.ndarray:
        """Where the king is the best guess on more than one square after every check, all but the likeliest
        are read as what else they show (their reading without the king's share), at most KING_RIVAL_SURE.

        WHY: `one_king` hands a losing square's king share to the defender, which is right for the colour
        alone (a gold top is a light piece's); after the disc checks a square's reading has weighed what the
        camera saw of a piece, so without the king it is what that reading says. Museum light, seeds
        145,058,017 j10: bare wood under a gold-tinted veil, its colour the king (0.96) and its disc unseen,
        kept the king's guess (0.49, the empty square 0.45) while the real king on f6 was read 0.7.
        """
        k = int(SquareClass.KING)
        kings = np.nonzero(p.argmax(1) == k)[0]
        if len(kings) < 2:
            return p
        losing = kings[kings != kings[int(np.argmax(p[kings, k]))]]
        p = p.copy()
        p[losing, k] = 0.0
        p[losing] /= np.maximum(p[losing].sum(1, keepdims=True), 1e-12)
        p[losing] = no_surer_than(p[losing], KING_RIVAL_SURE)
        return p

    @staticmethod
    def _lose_king(p: np.ndarray, losing: np.ndarray, rival: np.ndarray) -> np.ndarray:
        """The `losing` squares' king share handed to the defender; the `rival` ones among them, which read
        about as likely the king as the square that keeps him, are then at most KING_RIVAL_SURE sure."""
        k = int(SquareClass.KING)
        p = p.copy()
        p[losing, int(SquareClass.DEFENDER)] += p[losing, k]
        p[losing, k] = 0.0
        if rival.any():
            p[rival] = no_surer_than(p[rival], KING_RIVAL_SURE)
        return p

    @staticmethod
    def _king_guess(p: np.ndarray, cand: int) -> np.ndarray:
        """`cand` keeps KING_DOUBT as the king (the best guess, held back), the rest of its reading scaled down;
        a square that was read the king instead loses him (_lose_king)."""
        k = int(SquareClass.KING)
        p = p.copy()
        p[cand] *= 1.0 - KING_DOUBT
        p[cand, k] += KING_DOUBT
        rival = p.argmax(1) == k
        rival[cand] = False
        return SquareClassifier._lose_king(p, rival, rival)

    @staticmethod
    def hidden_king(p: np.ndarray) -> np.ndarray:
        """No square holds the king: any light piece may be him, his crown lost in glare or blur.

        A board in play has its king (a captured king ends the game), so a
        frame that shows him nowhere has not seen him; every light piece is
        then read as possibly the king, and none is a sure defender. The
        reader asks again after its shape checks (vision/reader.py): a "king"
        the colour found on a veiled empty square and the disc then took
        away leaves the real king, read as a defender, unseen too.
        """
        k, d = int(SquareClass.KING), int(SquareClass.DEFENDER)
        if p[:, k].max() >= KING_FOUND:
            return p
        light = p[:, d] + p[:, k]
        p = p.copy()
        p[:, k] = np.maximum(p[:, k], KING_HIDDEN * light)
        p[:, d] = light - p[:, k]
        return p

    @staticmethod
    def likeliest_king(p: np.ndarray, crown: np.ndarray | None, throne: int | None = None) -> np.ndarray:
        """No square holds the king: the light piece with the yellowest top is the best guess for him,
        or else the light piece on the throne.

        WHY: the king is on the board, and he is the only light piece with a
        gold crown. A veil adds white light, which pales the crown (so no
        square passed the clear comparison of `_king_by_crown`) but cannot
        make ivory gold; the light piece whose top is still the yellowest, by
        KING_GUESS_GAP over the next, is likelier the king than a defender. It
        gets KING_GUESS of its light share: the best guess, never a sure king
        (the others keep KING_HIDDEN).

        Where no top is yellowest by that gap, a light piece on the `throne`
        (the centre square) is the guess: the king starts there in all four
        rule sets, and in three of them (Copenhagen, York, Tablut; Throw Board
        with variation 1) no other piece may stop there (docs/rules.md). Hard
        light, development seeds 11M-15M: 12 of 20 kings read "defender" for
        want of a king anywhere stood on the throne. There he takes
        THRONE_KING_GUESS of the light, more than KING_GUESS: the square
        itself rules out a defender in those rule sets. And where the
        yellowest top cannot take the guess without losing its square to
        "empty" or "attacker" (a veiled empty square's faint top), the throne
        is still tried (museum light, development seeds 10,041,017: the king on
        f6 under a veil read "defender" so).
        """
        k, d = int(SquareClass.KING), int(SquareClass.DEFENDER)
        if p[:, k].max() >= KING_FOUND:
            return p
        light = p[:, d] + p[:, k]
        idx = np.nonzero(light >= KING_FOUND)[0]
        guesses: list[tuple[int, float]] = []
        if crown is not None and len(idx) >= 2:
            gold = np.asarray(crown, np.float64)[idx]
            order = np.argsort(gold)
            if gold[order[1]] - gold[order[0]] >= KING_GUESS_GAP:
                guesses.append((int(idx[order[0]]), KING_GUESS))
        if throne is not None and light[throne] >= KING_FOUND:
            guesses.append((throne, THRONE_KING_GUESS))
        for cand, share in guesses:
            if share * light[cand] <= max(p[cand, int(SquareClass.EMPTY)], p[cand, int(SquareClass.ATTACKER)]):
                continue                # splitting his light would hand the square to another class
            p = p.copy()
            p[cand, k] = max(p[cand, k], share * light[cand])
            p[cand, d] = light[cand] - p[cand, k]
            return p
        return p

    @staticmethod
    def gold_king(p: np.ndarray, crown: np.ndarray | None, colour: np.ndarray, piece: np.ndarray) -> np.ndarray:
        """The piece whose crown is plainly the goldest of the frame's light pieces is the king's best guess,
        whatever the disc checks made of him.

        WHY: the king's top is his gold crown, which may sit darker than the
        wood (the disc then reads a dark top: an attacker, or the doubt's
        prior: empty) or under a veil that greys it (the colour then reads
        him a defender); meanwhile `likeliest_king` or the colour gave the
        king to a defender. But only the king has a gold top, and a veil or
        a lamp pales or tints every top alike. Museum light: development
        seeds 12,041,017 k3 (the king read an attacker), 14,045,017 d6 (a
        defender, c5 the king), fresh seeds 94,052,017 k8 (a defender, f3 the
        king); their crowns lay 0.30-0.70 (log B/R) below every other light
        piece's. Development frames (museum 10M-15M, 93M, 94M; hard 11M-16M,
        93M, 94M), every square compared: museum 6 squares read right that
        were wrong, none made wrong; hard 4 and 1 (15,038,017 g8, an empty
        square under a veil of 0.85, now the king's best guess, 0.67).

        The candidate is the square with the goldest crown among those the
        colour (`colour`: the classifier's probabilities before the disc
        checks) or the reading `p` take for a light piece more than for
        anything else (a greyed crown may read as an attacker's top until its
        light disc is seen), where the camera saw a piece that is no dark one
        (`piece`, the caller's: a veil makes an attacker's top look ivory,
        and bare wood tinted gold has no outline). Where its crown lies
        KING_GAP below every square now read a light piece (KING_MIN_LIGHT of
        them at least), it keeps KING_DOUBT as the king (the best guess, held
        back), the rest of its reading scaled down; a square that was read
        the king instead is then a defender, at most KING_RIVAL_SURE sure.
        """
        k, d, e, a = (int(c) for c in (SquareClass.KING, SquareClass.DEFENDER, SquareClass.EMPTY,
                                       SquareClass.ATTACKER))
        if crown is None:
            return p
        gold = np.asarray(crown, np.float64)
        light_first = [q[:, d] + q[:, k] >= np.maximum(q[:, e], q[:, a]) for q in (colour, p)]
        able = (light_first[0] | light_first[1]) & np.asarray(piece, bool)
        if not able.any():
            return p
        cand = int(np.nonzero(able)[0][np.argmin(gold[able])])
        read_light = np.isin(p.argmax(1), (d, k))
        read_light[cand] = False
        if int(read_light.sum()) < KING_MIN_LIGHT or int(p[cand].argmax()) == k:
            return p
        if gold[cand] > float(gold[read_light].min()) - KING_GAP:
            return p
        return SquareClassifier._king_guess(p, cand)

    @staticmethod
    def centred_king(p: np.ndarray, centred: np.ndarray, sure: float) -> np.ndarray:
        """While no square holds the king `sure`ly, the one light piece whose gold is plainly in the middle of its
        top (`centred`: vision/features.crown_centred, NaN where not measured) is the king's best guess, where no
        other light piece's gold is centred at all (CROWN_CENTRED).

        WHY: the crown feature compares a top's colour with the wood's, and a warm lamp tints every top gold;
        only the king's gold is a small crown in his top's middle. Hard light, fresh seeds 132,023,017: the king
        on e7 set off his square's centre, his crown feature measured beside the crown (-0.02 where the
        frame's lamp-tinted defenders had 0.40-0.53), read a sure defender (0.99) while a defender on g9 under
        the lamp took the king (0.8); crown_centred gave e7 0.23 and every other light piece -0.10 to -0.23.
        The guess is held back (KING_DOUBT, as gold_king's), and the square that loses the king is at most
        KING_RIVAL_SURE sure.
        """
        k, d = int(SquareClass.KING), int(SquareClass.DEFENDER)
        if float(p[:, k].max()) >= sure:
            return p
        light = np.isin(p.argmax(1), (d, k)) & np.isfinite(centred)
        value = np.where(light, centred, -np.inf)
        plain = np.nonzero(value >= CROWN_PLAIN)[0]
        if len(plain) != 1 or int(p[plain[0]].argmax()) == k:
            return p
        cand = int(plain[0])
        others = light.copy()
        others[cand] = False
        if (value[others] >= CROWN_CENTRED).any():
            return p
        return SquareClassifier._king_guess(p, cand)

    @staticmethod
    def throne_king(p: np.ndarray, throne: int | None, sure: float) -> np.ndarray:
        """A light piece read as a defender on the throne is the king's best guess, and a king read elsewhere a
        defender, while no square holds the king `sure`ly.

        WHY: the king starts on the throne in all four rule sets, and in three of them no other piece may
        stop there (docs/rules.md); a crown guessed elsewhere in doubt (`likeliest_king`, `gold_king`: the
        yellowest or goldest top in a frame whose tops a veil greys) is the weaker evidence. Hard light, fresh
        seeds 114M: the king on f6, his crown faint under a veil, read "defender" (0.5) in 3 of 60 frames while
        an empty square, an attacker or a defender elsewhere took the king's guess (0.43-0.60). Every
        development and held-out frame (seeds 10M-16M, 93M-103M, 107M-114M) where this changes a square: 15
        squares right that were wrong (9 kings on the throne, 6 defenders that had the king's guess), 1 wrong
        that was right (hard 94,012,017: an empty throne read "defender" took the guess from the real king),
        none sure. Only the best guess moves: the throne keeps the certainty its defender had (at most
        THRONE_DEFENDER_SURE, vision/reader.py), and the square that loses the king is at most KING_RIVAL_SURE.
        """
        k, d = int(SquareClass.KING), int(SquareClass.DEFENDER)
        if throne is None or int(p[throne].argmax()) != d or float(p[:, k].max()) >= sure:
            return p
        p = p.copy()
        p[throne, d], p[throne, k] = p[throne, k], p[throne, d]
        rival = p.argmax(1) == k
        rival[throne] = False
        return SquareClassifier._lose_king(p, rival, rival)

    @staticmethod
    def _king_by_crown(gold: np.ndarray, p: np.ndarray, light_keep: np.ndarray | None = None) -> np.ndarray:
        """The king is the one light piece whose top is clearly yellower than the other light pieces'.

        How gold a crown reads depends on its size, the light and the blur, so
        the built-in king model may miss a small or washed-out crown; but
        among this frame's light pieces, all of one ivory under one light, the
        king still stands out. When one light piece's gold feature lies well
        below all the others (by KING_GAP and many times their spread), it is
        taken as the king; a gap only half as clear leaves it in doubt, and so
        does a square left out of the comparison that may itself be a light
        piece (KING_HIDING: a piece under a veil, its disc or crown washed
        out): the real king may be there, and the yellowest of the pieces seen
        is then only the yellowest defender.
        """
        k, d = int(SquareClass.KING), int(SquareClass.DEFENDER)
        light_share = p[:, d] + p[:, k]
        shaped = light_share if light_keep is None else light_share * light_keep
        idx = np.nonzero(shaped >= KING_CANDIDATE)[0]
        if len(idx) < KING_MIN_LIGHT:
            return p
        g = np.asarray(gold, np.float64)[idx]
        order = np.argsort(g)
        cand, rest = idx[order[0]], g[order[1:]]
        med = float(np.median(rest))
        spread = 1.4826 * float(np.median(np.abs(rest - med)))
        gap, next_gap = med - float(g[order[0]]), med - float(g[order[1]])
        need = max(KING_GAP, KING_SPREADS * spread)
        if gap < need / 2 or next_gap > 0.7 * gap:
            return p
        hidden = (light_share >= KING_HIDING) & (shaped < KING_CANDIDATE)
        target = KING_SURE if gap >= need and not hidden.any() else KING_DOUBT
        if p[cand, k] < target * light_share[cand]:
            p = p.copy()
            p[cand, k] = target * light_share[cand]
            p[cand, d] = (1 - target) * light_share[cand]
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
