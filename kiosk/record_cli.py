"""`tafl-kiosk record`: the take-home game records (kiosk/record.py) on the command line.

    tafl-kiosk record encode --game FILE [--id GAME_ID | --index N]   the URL the QR code carries
    tafl-kiosk record verify URL [--key KEY ...]                       `valid` (exit 0) or why not (exit 1)
    tafl-kiosk record pubkey [--pem]                                   the public key the museum publishes
    tafl-kiosk record page DIR [--key NAME=KEY ...]                    the web page to upload, trusting keys

FILE is a game log file (`<state_dir>/gamelog/YYYY-MM.jsonl`, kiosk/gamelog.py);
encode takes its last game unless told which. The signing key lives in the
state directory: the one FILE is in, else `--state DIR`, else the config's
`kiosk.state_dir`. verify trusts `--key` keys, the state directory's own key
and the config's `kiosk.record_keys`. Usage and file errors exit 2.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kiosk.gamelog import GAMES_DIR, GameRecord
from kiosk.rewards import UNLOCK_ORDER, Unlocks


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tafl-kiosk record", description="Signed take-home game records.")
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE",
                        help="configuration file (default $TAFL_KIOSK_CONFIG or /etc/tafl-kiosk/config.toml)")
    common.add_argument("--state", metavar="DIR", help="state directory holding the record key")
    enc = sub.add_parser("encode", parents=[common], help="print the URL of a game of a game log file")
    enc.add_argument("--game", metavar="FILE", required=True, help="a game log file (gamelog/YYYY-MM.jsonl)")
    which = enc.add_mutually_exclusive_group()
    which.add_argument("--id", metavar="GAME_ID", help="the game with this game_id (default: the last game)")
    which.add_argument("--index", type=int, metavar="N", help="the N-th game of the file (1 = first, -1 = last)")
    enc.add_argument("--unlocks", metavar="LIST",
                     help="rewards to write, comma-separated from colours,shaded,crown "
                          "(default: what the game earned)")
    ver = sub.add_parser("verify", parents=[common], help="check a record URL's signature")
    ver.add_argument("url")
    ver.add_argument("--key", action="append", default=[], metavar="KEY",
                     help="a trusted public key (base64url, as `record pubkey` prints it); repeatable")
    pub = sub.add_parser("pubkey", parents=[common], help="print this kiosk's public key (made if missing)")
    pub.add_argument("--pem", action="store_true", help="as a PEM SubjectPublicKeyInfo block instead")
    page = sub.add_parser("page", parents=[common],
                          help="copy the record page into DIR, trusting this kiosk's key and --key ones")
    page.add_argument("dir")
    page.add_argument("--key", action="append", default=[], metavar="NAME=KEY",
                      help="another kiosk's name and public key to trust; repeatable")
    return p


def _config(args: argparse.Namespace):
    from calibration.config import DEFAULT_CONFIG_PATH, Config
    from calibration.config_file import load_config

    path = args.config or os.environ.get("TAFL_KIOSK_CONFIG") or DEFAULT_CONFIG_PATH
    if args.config is None and not os.path.exists(path):
        return Config()                   # a staff machine without the kiosk's config: the defaults
    return load_config(path)


def _state_dir(args: argparse.Namespace, config, game_file: Path | None = None) -> Path:
    if args.state:
        return Path(args.state)
    if game_file is not None and game_file.resolve().parent.name == GAMES_DIR:
        return game_file.resolve().parent.parent
    return Path(config.kiosk.state_dir)


def pick_game(path: Path, game_id: str | None = None, index: int | None = None) -> GameRecord:
    """One game of a game log file; ValueError naming the file and line when it cannot be had."""
    try:
        lines = [(n, line) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read it ({exc})") from None
    if not lines:
        raise ValueError(f"{path}: no games in it")
    if game_id is not None:
        for _, line in lines:
            try:
                game = GameRecord.from_json(line)
            except (ValueError, TypeError):
                continue
            if game.game_id == game_id:
                return game
        raise ValueError(f"{path}: no game with game_id {game_id!r}")
    position = -1 if index is None else index
    if position == 0 or abs(position) > len(lines) or position < -len(lines):
        raise ValueError(f"{path}: has {len(lines)} games; --index {index} is not one of them")
    number, line = lines[position - 1 if position > 0 else position]
    try:
        return GameRecord.from_json(line)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}:{number}: not a game record ({exc})") from None


def _unlocks(text: str | None) -> Unlocks | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in UNLOCK_ORDER]
    if unknown:
        raise ValueError(f"--unlocks {', '.join(unknown)}: expected names from {', '.join(UNLOCK_ORDER)}")
    return Unlocks(**{n: True for n in names})


def encode(args: argparse.Namespace) -> int:
    from kiosk.record import from_game_record, kiosk_name, signed_url
    from kiosk.record_key import load_or_create

    config = _config(args)
    game_file = Path(args.game)
    game = pick_game(game_file, args.id, args.index)
    record = from_game_record(game, kiosk_name(config.kiosk.kiosk_id), _unlocks(args.unlocks))
    key = load_or_create(_state_dir(args, config, game_file))
    print(signed_url(record, key.sign, config.kiosk.record_url))
    return 0


def verify(args: argparse.Namespace) -> int:
    from kiosk.record import verify_url
    from kiosk.record_key import trusted_keys

    config = _config(args)
    keys = trusted_keys(_state_dir(args, config), tuple(config.kiosk.record_keys), tuple(args.key))
    if not keys:
        print(f"no trusted public key: {_state_dir(args, config)} has no record key; give --state DIR or --key KEY")
        return 1
    verdict = verify_url(args.url, keys)
    print(verdict.reason)
    return 0 if verdict.valid else 1


def pubkey(args: argparse.Namespace) -> int:
    from kiosk.record_key import load_or_create

    key = load_or_create(_state_dir(args, _config(args)))
    print(key.public_pem().rstrip() if args.pem else key.public_text)
    return 0


def page(args: argparse.Namespace) -> int:
    from kiosk.record import kiosk_name
    from kiosk.record_key import load_or_create, parse_public_key
    from kiosk.record_page import publish

    config = _config(args)
    keys = [(kiosk_name(config.kiosk.kiosk_id), load_or_create(_state_dir(args, config)).public_text)]
    for item in args.key:
        name, sep, key = item.partition("=")
        if not sep:
            raise ValueError(f"--key {item!r}: expected NAME=KEY")
        parse_public_key(key)
        keys.append((name.strip(), key.strip()))
    out = publish(args.dir, keys)
    print(f"{out}: the record page, trusting {', '.join(name for name, _ in keys)}")
    return 0


def keys_joined(argv: list[str]) -> list[str]:
    """`--key VALUE` passed on as `--key=VALUE`.

    WHY: a public key is base64url, whose alphabet holds "-", and one key in 64 begins with it;
    argparse takes such a word for an option, and `record verify URL --key -Xb...` failed with
    "expected one argument" (exit 2).
    """
    out: list[str] = []
    words = iter(argv)
    for word in words:
        value = next(words, None) if word == "--key" else None
        out.append(word if value is None else f"--key={value}")
    return out


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(keys_joined(sys.argv[1:] if argv is None else list(argv)))
    try:
        return {"encode": encode, "verify": verify, "pubkey": pubkey, "page": page}[args.command](args)
    except (ValueError, OSError) as exc:
        print(f"tafl-kiosk record: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
