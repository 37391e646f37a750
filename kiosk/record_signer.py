"""The kiosk's side of the take-home record: sign the game that just ended, honour codes scanned back.

WHY in the controller's hands: the controller owns the state directory (where
the key lives, kiosk/record_key.py) and writes the game log record that the
take-home record is made from (kiosk/record.py); the screens only ask for the
URL with the visitor's unlocks and draw its QR code. A code held up to the
camera on the start screens (kiosk/qr_restore.py) comes back here to be
checked: a game record signed by this kiosk or a kiosk of `kiosk.record_keys`,
or a reward code (kiosk/rewards.py), either honoured for
`kiosk.reward_valid_days` after the day it was earned.
"""
from __future__ import annotations

import datetime as _dt
import logging
from pathlib import Path
from typing import Any

from kiosk.gamelog import GameRecord
from kiosk.rewards import QR_PREFIX, Unlocks, verify_code

log = logging.getLogger("kiosk.record")


class RecordSigner:
    """Signs the last finished game's record; checks the codes visitors bring back."""

    def __init__(self, config: Any, state_dir: str | Path) -> None:
        self.config = config
        self.state_dir = Path(state_dir)
        self._key: Any = None
        self._record: GameRecord | None = None
        self._urls: dict[int, str | None] = {}
        self._broken = False

    def finished(self, record: GameRecord | None) -> None:
        """The game log record of the game that just ended (None: no record to give)."""
        self._record = record
        self._urls = {}

    def key(self) -> Any:
        """The kiosk's record key (made on first use), or None when it cannot be had (logged once)."""
        if self._key is None and not self._broken:
            from kiosk.record_key import load_or_create

            try:
                self._key = load_or_create(self.state_dir)
            except OSError as exc:
                self._broken = True
                log.error("no record key in %s: %s; games get no take-home QR code", self.state_dir, exc)
        return self._key

    def url(self, unlocks: Unlocks) -> str | None:
        """The signed URL of the game that just ended with the visitor's ``unlocks``; None without one."""
        flags = unlocks.flags()
        if self._record is None:
            return None
        if flags not in self._urls:
            self._urls[flags] = self._make(self._record, unlocks)
        return self._urls[flags]

    def _make(self, game: GameRecord, unlocks: Unlocks) -> str | None:
        from kiosk.record import from_game_record, kiosk_name, signed_url

        key = self.key()
        if key is None:
            return None
        try:
            record = from_game_record(game, kiosk_name(self.config.kiosk.kiosk_id), unlocks)
            return signed_url(record, key.sign, self.config.kiosk.record_url)
        except ValueError as exc:             # a game the record format cannot hold: no QR, the game is fine
            log.warning("no take-home record for game %s: %s", game.game_id, exc)
            return None

    def restore(self, text: str, today: _dt.date | None = None) -> Unlocks | None:
        """The unlocks a scanned code gives back, or None for a foreign, forged or expired one."""
        valid_days = self.config.kiosk.reward_valid_days
        today = today or _dt.datetime.now(_dt.UTC).date()
        if text.strip().upper().startswith(QR_PREFIX):
            code = verify_code(text, self.config.kiosk.reward_secret)
            if code is None or code.expired(valid_days, today):
                return None
            return code.unlocks
        from kiosk.record import verify_url
        from kiosk.record_key import trusted_keys

        try:
            keys = trusted_keys(self.state_dir, tuple(self.config.kiosk.record_keys))
        except ValueError:
            return None
        verdict = verify_url(text, keys)
        if verdict.record is None or not verdict.record.unlocks.flags():
            return None
        earned = _dt.date.fromisoformat(verdict.record.ended_at[:10])
        if today > earned + _dt.timedelta(days=valid_days):
            return None
        return verdict.record.unlocks
