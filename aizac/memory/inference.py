"""Which slot a fact fills when the extractor did not say (pure, apart from reading a word list
once).

Extractors leave the optional fields out: a character fact without its ``aspect``, a world
rule without ``rule``, a payoff without ``paid_off``. What the reply still carries is used
instead:

* the slot words in the fact's text and keyword, in Korean, English and Chinese
  (``slot_words.toml`` beside this module: "다쳤" / "injured" / "受伤" state a condition, a
  label such as "거처:" or "whereabouts -" names the slot itself);
* the character's current facts: a fact that restates one of them in other words belongs to
  its slot, and breaks a tie between two slots the words point to;
* for a rule, a current rule with the same keyword, or a label ("규칙", "law", "规则");
* for a payoff, a beat line that quotes an open thread (its keyword, or most of its words with
  the same numbers and codes).

Where the evidence points two ways the guess says so (``sure=False``) and names the current
facts the new one may replace: the caller keeps both and flags the pair for the writer rather
than guessing silently.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aizac.memory.facts import ASPECTS, OTHER, marks, name_key, text_key

WORDS_FILE = Path(__file__).with_name("slot_words.toml")
SLOT_ASPECTS: tuple[str, ...] = tuple(a for a in ASPECTS if a != OTHER)
LABEL = 3.0
"""Weight of a slot's own name used as a label ("거처: 왕도") or as the fact's keyword."""
CUE = 1.0
JOIN = 2.0
"""Weight of going into a group ("교단에 들어갔다", "entered the guild"): joining it."""
SAME_SLOT = 0.8
"""Similarity to a current fact at which a fact without slot words restates it."""
TIE_BREAK = 0.4
"""Similarity to a current fact that decides between two slots the words point to."""
MARGIN = 0.2
"""How much more similar to one current fact than to the next a restatement must be."""
QUOTE = 0.6
"""Share of an open thread's character bigrams a beat line repeats (or of the line's found in
the thread) for the line to quote it."""
MIN_QUOTE = 4
"""Fewest character bigrams a quote shares with the thread (one shared word is no quote)."""
_SEPARATOR = re.compile(r"\s*[:：\-—–=|\]\)）】]")


@dataclass(frozen=True)
class Holder:
    """A current fact of a character that holds a slot."""

    id: str
    aspect: str
    text: str


@dataclass(frozen=True)
class SlotGuess:
    """What a character fact is about.

    Attributes:
        aspect: the aspect it is a state of, or ``""`` for a note that holds no slot.
        sure: the evidence points one way (or nowhere). When ``False`` the fact is kept as a
            note and ``conflicts`` names the current facts it may replace.
        conflicts: ids of current facts that may state the same slot differently.
        scores: the evidence per aspect (for tests and the curious).
    """

    aspect: str
    sure: bool = True
    conflicts: tuple[str, ...] = ()
    scores: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleGuess:
    """Whether a setting fact is a world rule; ``sure=False``: it may restate ``conflicts``."""

    rule: bool
    sure: bool = True
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Entry:
    word: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class _Words:
    labels: dict[str, tuple[_Entry, ...]]
    cues: dict[str, tuple[_Entry, ...]]
    enter: tuple[_Entry, ...]
    group: tuple[_Entry, ...]
    rule_labels: tuple[_Entry, ...]
    rule_cues: tuple[_Entry, ...]
    payoff: tuple[_Entry, ...]


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def _entry(word: str) -> _Entry:
    """A word of the list as a pattern: Latin whole words (or beginnings with ``*``), other
    scripts anywhere."""
    norm = _norm(word.rstrip("*"))
    if norm.isascii():
        tail = r"\w*" if word.endswith("*") else r"\b"
        return _Entry(norm, re.compile(r"\b" + re.escape(norm) + tail))
    return _Entry(norm, re.compile(re.escape(norm)))


@functools.cache
def words() -> _Words:
    """The slot words (read once from :data:`WORDS_FILE`)."""
    data = tomllib.loads(WORDS_FILE.read_text(encoding="utf-8"))
    aspects = data["aspects"]

    def entries(values: Iterable[str]) -> tuple[_Entry, ...]:
        return tuple(_entry(w) for w in values if w.strip())

    return _Words(
        labels={a: entries(aspects.get(a, {}).get("label", ())) for a in SLOT_ASPECTS},
        cues={a: entries(aspects.get(a, {}).get("cue", ())) for a in SLOT_ASPECTS},
        enter=entries(aspects["whereabouts"].get("enter", ())),
        group=entries(aspects["allegiance"].get("group", ())),
        rule_labels=entries(data["rule"]["label"]),
        rule_cues=entries(data["rule"]["cue"]),
        payoff=entries(data["payoff"]["cue"]),
    )


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    aspect: str
    kind: str  # "label" | "cue" | "enter" | "group"
    word: str


def _without_names(text: str, names: Iterable[str]) -> str:
    out = _norm(text)
    for name in sorted({_norm(n) for n in names if n and n.strip()}, key=len, reverse=True):
        out = out.replace(name, " " * len(name))
    return out


def _matches(text: str) -> list[_Match]:
    """Every word of the list found in ``text`` (normalised), the longer of two overlapping
    ones kept."""
    w = words()
    found: list[_Match] = []

    def scan(entries: Iterable[_Entry], aspect: str, kind: str) -> None:
        for e in entries:
            found.extend(_Match(m.start(), m.end(), aspect, kind, e.word)
                         for m in e.pattern.finditer(text))

    for aspect in SLOT_ASPECTS:
        scan(w.labels[aspect], aspect, "label")
        scan(w.cues[aspect], aspect, "cue")
    scan(w.enter, "whereabouts", "enter")
    scan(w.group, "allegiance", "group")
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[_Match] = []
    for m in found:
        inside = any(k.start <= m.start and m.end <= k.end and (k.end - k.start) > (m.end - m.start)
                     for k in kept)
        if not inside:
            kept.append(m)
    return kept


def slot_scores(text: str, keyword: str = "", names: Iterable[str] = ()) -> dict[str, float]:
    """The evidence for each aspect in a character fact's text and keyword (pure)."""
    body = _without_names(text, names)
    scores = dict.fromkeys(SLOT_ASPECTS, 0.0)
    counted: set[tuple[str, str]] = set()
    found = _matches(body)
    groups = any(m.kind == "group" for m in found)
    for m in found:
        if m.kind == "group" or (m.aspect, m.word) in counted:
            continue
        counted.add((m.aspect, m.word))
        if m.kind == "enter":
            scores["allegiance" if groups else "whereabouts"] += JOIN if groups else CUE
        elif m.kind == "label":
            labelled = bool(_SEPARATOR.match(body, m.end))
            if labelled:
                scores[m.aspect] += LABEL
            elif len(m.word) >= 2 and not m.word.isascii():
                scores[m.aspect] += CUE
        else:
            scores[m.aspect] += CUE
    key = name_key(keyword)
    if key:
        w = words()
        for aspect in SLOT_ASPECTS:
            if any(name_key(e.word) == key for e in w.labels[aspect]):
                scores[aspect] += LABEL
            elif any(e.pattern.search(_norm(keyword)) for e in w.cues[aspect]):
                scores[aspect] += CUE
    return scores


def _bigrams(text: str) -> set[str]:
    key = text_key(text)
    return {key[i : i + 2] for i in range(len(key) - 1)} if len(key) > 1 else {key} - {""}


def _content(text: str, names: Iterable[str]) -> str:
    """What a fact says once names and numbers are left out (they are shared by its versions
    or differ between restatements)."""
    return re.sub(r"\d+", " ", _without_names(text, names))


def similarity(a: str, b: str, names: Iterable[str] = ()) -> float:
    """Bigram Dice similarity of two facts' content (names and numbers left out)."""
    ga, gb = _bigrams(_content(a, names)), _bigrams(_content(b, names))
    return 2 * len(ga & gb) / (len(ga) + len(gb)) if ga and gb else 0.0


def guess_aspect(
    text: str,
    keyword: str = "",
    *,
    holders: Sequence[Holder] = (),
    names: Iterable[str] = (),
) -> SlotGuess:
    """The aspect a character fact states, from its words and the character's current facts.

    Args:
        text: the fact.
        keyword: its keyword (may be a slot name: "상태", "whereabouts").
        holders: the character's current facts that hold a slot (one per aspect).
        names: names to leave out of the text (the cast): they are not words about a slot.
    """
    names = list(names)
    scores = slot_scores(text, keyword, names)
    ranked = sorted(SLOT_ASPECTS, key=lambda a: (-scores[a], SLOT_ASPECTS.index(a)))
    best, first = ranked[0], scores[ranked[0]]
    second = scores[ranked[1]]
    sims = {h.id: similarity(text, h.text, names) for h in holders}

    def restates(among: Sequence[Holder], least: float) -> Holder | None:
        order = sorted(among, key=lambda h: -sims[h.id])
        if not order or sims[order[0].id] < least:
            return None
        rest = [sims[h.id] for h in holders if h.id != order[0].id]
        return order[0] if not rest or sims[order[0].id] - max(rest) >= MARGIN else None

    if first > 0 and (second == 0 or first >= 2 * second):
        return SlotGuess(best, True, (), scores)
    if first > 0:
        close = [a for a in SLOT_ASPECTS if scores[a] * 2 > first]
        found = restates([h for h in holders if h.aspect in close], TIE_BREAK)
        if found is not None:
            return SlotGuess(found.aspect, True, (), scores)
        doubt = tuple(h.id for h in holders if h.aspect in close)
        return SlotGuess("", not doubt, doubt, scores)
    found = restates(holders, SAME_SLOT)
    return SlotGuess(found.aspect if found else "", True, (), scores)


def guess_rule(
    text: str, keyword: str, *, current_rule: bool, same_keyword: Sequence[str] = ()
) -> RuleGuess:
    """Whether a setting fact is a world rule.

    Args:
        text: the fact.
        keyword: its keyword (a rule's slot; without one it cannot be a rule).
        current_rule: a current rule has this keyword (then a new fact with it revises it).
        same_keyword: ids of current plain settings with this keyword (an earlier statement
            of the rule the extractor did not mark).
    """
    if not name_key(keyword):
        return RuleGuess(False)
    if current_rule:
        return RuleGuess(True)
    w = words()
    body = _norm(f"{keyword} {text}")
    if any(e.pattern.search(body) for e in w.rule_labels):
        return RuleGuess(True)
    if any(e.pattern.search(body) for e in w.rule_cues) and same_keyword:
        return RuleGuess(False, False, tuple(same_keyword))
    return RuleGuess(False)


def reveals(text: str) -> bool:
    """Whether a line says something planted came to light ("드러났다", "turned out")."""
    body = _norm(text)
    return any(e.pattern.search(body) for e in words().payoff)


def quoted_thread(
    line: str, threads: Sequence[tuple[str, str, str]], *, need_reveal: bool = False
) -> str | None:
    """The id of the open thread ``line`` quotes, or ``None`` (none, or two equally).

    ``threads`` holds ``(id, keyword, text)``. A line quotes a thread that it names by keyword,
    or whose words it mostly repeats (:data:`QUOTE` of the bigrams) without other numbers or
    codes ("the seal of scene 12" is not the seal of scene 18). ``need_reveal``: the line
    must also say that something came to light (an event line, unlike a ``pays_off`` one,
    may mention a thread without paying it off).
    """
    if not line.strip() or (need_reveal and not reveals(line)):
        return None
    key, grams, said = text_key(line), _bigrams(line), marks(line)
    scored: list[tuple[float, str]] = []
    for mid, keyword, text in threads:
        kw = name_key(keyword)
        if len(kw) >= 2 and kw in key:
            scored.append((2.0, mid))
            continue
        planted = marks(text)
        if planted and said and not planted & said:
            continue
        theirs = _bigrams(text)
        shared = len(theirs & grams)
        share = max(shared / len(theirs), shared / len(grams)) if theirs and grams else 0.0
        if share >= QUOTE and shared >= MIN_QUOTE:
            scored.append((share + (0.5 if planted and planted <= said else 0.0), mid))
    scored.sort(key=lambda p: -p[0])
    if not scored or (len(scored) > 1 and scored[0][0] - scored[1][0] < 0.05):
        return None
    return scored[0][1]


__all__ = [
    "SLOT_ASPECTS",
    "WORDS_FILE",
    "Holder",
    "RuleGuess",
    "SlotGuess",
    "guess_aspect",
    "guess_rule",
    "quoted_thread",
    "reveals",
    "similarity",
    "slot_scores",
    "words",
]
