"""What a user name and a password must be (pure apart from reading two data files once).

* **Names** are NFKC-normalised (``ａｌｉｃｅ`` is ``alice``) and compared case-folded; two names
  whose *confusable skeletons* agree (Unicode's confusables data: Cyrillic ``а`` looks like
  Latin ``a``, ``l`` like ``1``) are one account, so a look-alike of an existing name is
  refused. The skeleton is built from the ``confusable-homoglyphs`` package's copy of
  Unicode's ``confusables.txt``: every character is replaced by the smallest member of its
  class of look-alikes.
* **Passwords** are 8-256 characters and must not be easy to guess: ``zxcvbn`` (Dropbox's
  estimator, with its lists of common passwords, names and words, keyboard patterns, repeats
  and dates) must rate them at least ``min_score`` of 4, with the user name counted as known.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

from aizac.errors import InvalidInputError
from aizac.server.errors import clip

MIN_PASSWORD = 8
MAX_PASSWORD = 256
ZXCVBN_LENGTH = 100
"""Characters of a password the estimator reads (its cost grows with the length; past this
every password is strong anyway)."""
NAME_PUNCTUATION = "._-"


def normal_name(name: str) -> str:
    """``name`` as stored and shown: NFKC, stripped (pure)."""
    return unicodedata.normalize("NFKC", name).strip()


def name_key(name: str) -> str:
    """The identity of a name: NFKC, case-folded, NFKC again (``Mina`` = ``ｍｉｎａ`` =
    ``mina``) (pure)."""
    return unicodedata.normalize("NFKC", normal_name(name).casefold())


def check_user_name(name: str) -> str:
    """``name`` NFKC-normalised: 2-40 letters, digits, '.', '-' or '_', starting with a
    letter or digit; else :class:`InvalidInputError`."""
    clean = normal_name(name)
    ok = 2 <= len(clean) <= 40 and all(c.isalnum() or c in NAME_PUNCTUATION for c in clean)
    if not ok or clean[0] in NAME_PUNCTUATION:
        raise InvalidInputError("error.server.name_invalid", name=clip(name, 60))
    return clean


@functools.cache
def _classes() -> dict[str, str]:
    """Character -> the representative of its class of look-alikes (single characters)."""
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(
        encoding="utf-8")
    table: dict[str, list[dict[str, str]]] = json.loads(raw)
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        root = c
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(c, c) != root:  # path compression
            parent[c], c = root, parent[c]
        return root

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            low, high = sorted((ra, rb))
            parent[high] = low

    for char, glyphs in table.items():
        if len(char) != 1:
            continue
        for glyph in glyphs:
            other = glyph.get("c", "")
            if len(other) == 1:
                union(char, other)
    return {c: find(c) for c in parent}


def skeleton(name: str) -> str:
    """What ``name`` looks like (pure): its case-folded NFKC form with every character
    replaced by its class of look-alikes; two names with one skeleton are confusable."""
    classes = _classes()
    folded = unicodedata.normalize("NFD", name_key(name))
    marks = "".join(classes.get(c, c) for c in folded if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", marks)


def check_password(password: str, *, name: str = "", min_score: int = 3) -> str:
    """``password`` if it is long enough and hard enough to guess, else
    :class:`InvalidInputError` (the password itself is never repeated)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidInputError("error.server.password_length", low=MIN_PASSWORD,
                                high=MAX_PASSWORD)
    if not password.strip() or len(set(password)) < 3:
        raise InvalidInputError("error.server.password_weak")
    if min_score > 0:
        from zxcvbn import zxcvbn

        known = [x for x in (name, name_key(name)) if x]
        score = int(zxcvbn(password[:ZXCVBN_LENGTH], user_inputs=known,
                           max_length=ZXCVBN_LENGTH)["score"])
        if score < min_score:
            raise InvalidInputError("error.server.password_weak")
    return password


__all__ = ["MAX_PASSWORD", "MIN_PASSWORD", "check_password", "check_user_name", "name_key",
           "normal_name", "skeleton"]
