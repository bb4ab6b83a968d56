"""Coverage of the planned beats by the prose, and the draft's names resolved to the cast (pure).

A beat is *covered* when its prose (the text under its index, or the whole episode when the
prose is not split by beat) names someone in the scene or echoes its events: the share of the
events' character bigrams found in the prose is at least :data:`COVERED` (half that when a
character of the beat is named). A name the draft uses that is not exactly a known name or alias
is matched against the cast: without particles and honorifics, as part of a full name ("도준"
for "진도준", "Mira" for "Kang Mira"), or spelled nearly the same; :data:`CERTAIN` or more and a
single best match is certain, anything else is a question for the writer.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence

from aizac.continuity.claims import BeatLike
from aizac.continuity.report import NameResolution
from aizac.continuity.text import containment, mentions
from aizac.memory.facts import name_key
from aizac.text.particles import name_stems

COVERED = 0.3
CERTAIN = 0.9
NEW = 0.5
"""Below this confidence a name is a new character, not a known one misspelled."""
_THREE_SYLLABLES = re.compile(r"[\uac00-\ud7a3]{3}")


def _beat_prose(prose: Mapping[int, str], index: int) -> str:
    if index in prose:
        return prose[index] or ""
    if any(isinstance(k, int) and k > 0 for k in prose):
        return ""
    return "\n".join(prose.values())


def covers(beat: BeatLike, text: str) -> bool:
    """Whether ``text`` covers ``beat`` (see module doc)."""
    if not text.strip():
        return False
    events = [e for e in beat.events if e.strip()]
    share = sum(containment(e, text) for e in events) / len(events) if events else 0.0
    named = any(mentions(text, n) or mentions(text, short_name(n)) for n in beat.characters)
    return share >= COVERED or (named and share >= COVERED / 2) or (named and not events)


def coverage(beats: Sequence[BeatLike], prose: Mapping[int, str]) -> tuple[
        tuple[int, ...], tuple[int, ...]]:
    """The indices of the planned beats the prose covered, and of those it missed."""
    covered: list[int] = []
    missed: list[int] = []
    for beat in sorted(beats, key=lambda b: b.index):
        (covered if covers(beat, _beat_prose(prose, beat.index)) else missed).append(beat.index)
    return tuple(covered), tuple(missed)


def short_name(name: str) -> str:
    """A Korean three-syllable name without its surname ("진도준" -> "도준"); else ``name``."""
    key = name.strip()
    if _THREE_SYLLABLES.fullmatch(key):
        return key[1:]
    return key


def _score(name: str, canonical: str, aliases: Sequence[str]) -> float:
    """How surely ``name`` is ``canonical``: the best of the name as written and of each stem
    without the particle or title it may carry ("미라님이" is "미라"; "수아" stays "수아",
    its stem "수" scores lower)."""
    return max(_score_bare(name, bare, canonical, aliases)
               for bare in (name.strip(), *name_stems(name.strip())))


def _score_bare(name: str, stem: str, canonical: str, aliases: Sequence[str]) -> float:
    raw, bare = name_key(name), name_key(stem)
    best = 0.0
    for known in (canonical, *aliases):
        k = name_key(known)
        if not k:
            continue
        if bare == k:
            best = max(best, 0.95)
        elif name_key(short_name(known)) in (raw, bare) and len(bare) >= 2:
            best = max(best, 0.85)
        elif len(bare) >= 3 and (k.endswith(bare) or k.startswith(bare) or bare in k):
            best = max(best, 0.8)
        else:
            best = max(best, 0.9 * difflib.SequenceMatcher(None, bare, k).ratio())
    return round(best, 3)


def resolve_names(names: Sequence[str], cast: Mapping[str, Sequence[str]]) -> list[
        NameResolution]:
    """Each name of ``names`` that is not a known name or alias, matched against ``cast``
    (canonical name -> aliases)."""
    known = {name_key(c) for c in cast} | {name_key(a) for v in cast.values() for a in v}
    out: list[NameResolution] = []
    for name in dict.fromkeys(names):
        if not name_key(name) or name_key(name) in known:
            continue
        scored = sorted(((_score(name, c, list(a)), c) for c, a in cast.items()), reverse=True)
        best = scored[0] if scored else (0.0, "")
        close = tuple(c for s, c in scored if s >= NEW and best[0] - s < 0.1)
        if best[0] < NEW:
            out.append(NameResolution(name, None, round(1 - best[0], 3), True, ()))
        elif best[0] >= CERTAIN and len(close) == 1:
            out.append(NameResolution(name, best[1], best[0], True, close))
        else:
            out.append(NameResolution(name, best[1], best[0], False, close))
    return out


__all__ = ["CERTAIN", "COVERED", "NEW", "coverage", "covers", "resolve_names", "short_name"]
