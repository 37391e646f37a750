"""Every text the visitor or staff can see, from JSON files per language (en.json, sv.json, ...).

Files hold nested objects; keys are their dotted paths ("game.resign").
`Texts.get` falls back to English for a key a translation lacks, and shows
the key itself only when no language has it (so a missing text is visible in
testing instead of an empty button). `key_differences` is the check that
every language has exactly the keys of English; a test runs it.
"""
from __future__ import annotations

import json
from pathlib import Path
from string import Formatter

HERE = Path(__file__).resolve().parent
FALLBACK = "en"


def _flatten(tree: dict, prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, path + "."))
        elif isinstance(value, str):
            flat[path] = value
        else:
            raise ValueError(f"text {path!r} must be a string or an object, not {type(value).__name__}")
    return flat


def available_languages(directory: Path = HERE) -> list[str]:
    """Language codes that have a file, English first."""
    codes = sorted(p.stem for p in directory.glob("*.json"))
    return sorted(codes, key=lambda code: (code != FALLBACK, code))


def load_catalog(language: str, directory: Path = HERE) -> dict[str, str]:
    """The flat key -> text table of one language; ValueError naming the file if it is broken."""
    path = directory / f"{language}.json"
    if not path.exists():
        raise ValueError(f"no texts for language {language!r} (looked for {path})")
    try:
        tree = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(tree, dict):
        raise ValueError(f"{path}: top level must be an object")
    return _flatten(tree)


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name}


def key_differences(directory: Path = HERE) -> dict[str, dict[str, set[str]]]:
    """For each language other than English: keys it lacks, keys it has extra, and keys whose
    {placeholders} differ from English. Empty sets everywhere = consistent."""
    base = load_catalog(FALLBACK, directory)
    report: dict[str, dict[str, set[str]]] = {}
    for code in available_languages(directory):
        if code == FALLBACK:
            continue
        other = load_catalog(code, directory)
        report[code] = {
            "missing": set(base) - set(other),
            "extra": set(other) - set(base),
            "placeholders": {k for k in set(base) & set(other) if placeholders(base[k]) != placeholders(other[k])},
        }
    return report


class Texts:
    """The current language's texts with English as fallback; switch with `set_language`."""

    def __init__(self, language: str = FALLBACK, directory: Path = HERE) -> None:
        self.directory = directory
        self.languages = available_languages(directory)
        self._fallback = load_catalog(FALLBACK, directory)
        self._catalogs: dict[str, dict[str, str]] = {FALLBACK: self._fallback}
        self.language = FALLBACK
        self.set_language(language)

    def set_language(self, language: str) -> None:
        if language not in self.languages:
            raise ValueError(f"no texts for language {language!r}; have {', '.join(self.languages)}")
        if language not in self._catalogs:
            self._catalogs[language] = load_catalog(language, self.directory)
        self.language = language

    def next_language(self) -> str:
        """The language the flag button switches to."""
        index = self.languages.index(self.language)
        return self.languages[(index + 1) % len(self.languages)]

    def has(self, key: str) -> bool:
        return key in self._catalogs[self.language] or key in self._fallback

    def get(self, key: str, default: str | None = None, **args: object) -> str:
        """The text for ``key`` with ``{name}`` placeholders filled from ``args``.

        A missing placeholder value leaves the placeholder's name visible rather
        than failing mid-frame.
        """
        text = self._catalogs[self.language].get(key)
        if text is None:
            text = self._fallback.get(key)
        if text is None:
            if default is not None and default != key:
                return self.get(default, None, **args)
            return key
        if args or placeholders(text):
            try:
                return text.format_map(_Lenient(args))
            except (ValueError, IndexError):
                return text
        return text

    __call__ = get


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
