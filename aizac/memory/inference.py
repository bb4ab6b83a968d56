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
  the same numbers and codes) and says something new of it: a word that it came to light, or,
  short of one, words of its own beside the thread's, unless they say it still waits
  (remembered, sought, still hidden) or that nothing was found.

With a semantic embedding (the product's default, multilingual e5; not the lexical hash) the
meaning is asked where the words say nothing or point two ways (:class:`SlotSense`): a fact is
compared with example sentences of each slot (``slot_prototypes.toml``, ko/en/zh) and with the
story's own facts of each slot; a beat line with an open thread (:func:`sensed_thread`); a
setting with rule and description examples. Its thresholds are leads of one kind over the next,
calibrated on the bench's studied wordings only.

Where the evidence points two ways the guess says so (``sure=False``) and names the current
facts the new one may replace: the caller keeps both and flags the pair for the writer rather
than guessing silently.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aizac.memory.facts import APPEARANCE, ASPECTS, OTHER, marks, name_key, text_key

WORDS_FILE = Path(__file__).with_name("slot_words.toml")
PROTOTYPES_FILE = Path(__file__).with_name("slot_prototypes.toml")
SLOT_ASPECTS: tuple[str, ...] = tuple(a for a in ASPECTS if a not in (OTHER, APPEARANCE))
"""Aspects the inference places a fact in (a look is one slot per feature keyword: the
extractor names it or the fact stays a note)."""
LABEL = 3.0
"""Weight of a slot's own name used as a label ("거처: 왕도") or as the fact's keyword."""
CUE = 1.0
NOUN = 0.5
"""Weight of a noun of the slot's field (a place, a part of the body, a side): less than a
verb, since "the port" can be where a thing happened rather than where someone is."""
NOUN_CAP = 1.0
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
LABEL_GAP = 3
"""Words a label may be followed by before its separator ("상태(7번째 장면):", "health in
scene 7:")."""
MIN_QUOTE = 4
"""Fewest character bigrams a quote shares with the thread (one shared word is no quote)."""
MIN_WORDS = 2
"""Fewest of a thread's own words (not shared by most open threads) a quote names."""
_SEPARATORS = ":：/|—–=-"


@functools.cache
def _before() -> re.Pattern[str]:
    """What may stand right before a label: a line start, a separator or a possessive
    (``possessive`` in :data:`WORDS_FILE`)."""
    data = tomllib.loads(WORDS_FILE.read_text(encoding="utf-8"))
    owners = "|".join(re.escape(w) for w in data["label_context"]["possessive"])
    return re.compile(rf"(?:^|[/|—–:：,(\[]|{owners})\s*$")


_OPEN, _CLOSE = "[(（【《〈「『«", "])）】》〉」』»"
"""Brackets a field's heading may stand in ("[health]", "《injuries》", "(health)", "«base»")."""


def _heading(body: str, start: int, end: int) -> bool:
    """Whether ``body[start:end]`` lies inside a short bracketed heading without numbers
    ("《injuries so far》", "(wellbeing)"; not "(since scene 12)"): the heading names the
    field."""
    opened = max(body.rfind(c, 0, start) for c in _OPEN)
    if opened < 0:
        return False
    closes = [i for i in (body.find(c, end) for c in _CLOSE) if i >= 0]
    if not closes:
        return False
    inner = body[opened + 1:min(closes)]
    if any(c in inner for c in _OPEN + _CLOSE) or any(c.isdigit() for c in inner):
        return False
    return len(inner.split()) <= LABEL_GAP


def _labelled(body: str, start: int, end: int) -> bool:
    """Whether the slot name at ``body[start:end]`` is used as a label: it heads a field
    ("거처: 왕도", "Mira's health in scene 7: ...", "이름 / 컨디션 / ...", "[状态]")."""
    if body[end:end + 1] in _CLOSE and body[start - 1:start] in _OPEN:
        return True
    rest = body[end:]
    cut = min((rest.find(c) for c in _SEPARATORS if c in rest), default=-1)
    if cut < 0:
        return False
    gap = re.sub(r"\([^)]*\)|\d+", " ", rest[:cut])
    if len(gap.split()) > LABEL_GAP or "," in gap:
        return False
    return bool(_before().search(body[:start])) or not gap.strip()


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
    nouns: dict[str, tuple[_Entry, ...]]
    enter: tuple[_Entry, ...]
    group: tuple[_Entry, ...]
    frame: tuple[_Entry, ...]
    body: frozenset[str]
    place: frozenset[str]
    vague: frozenset[str]
    time: frozenset[str]
    rule_labels: tuple[_Entry, ...]
    rule_cues: tuple[_Entry, ...]
    payoff: tuple[_Entry, ...]
    payoff_empty: tuple[_Entry, ...]
    payoff_hold: tuple[_Entry, ...]
    not_after: tuple[str, ...]
    not_before: frozenset[str]
    none_after: frozenset[str]
    intent_before: frozenset[str]
    not_verb: tuple[re.Pattern[str], ...]
    particles: tuple[str, ...]
    object_particles: tuple[str, ...]
    adnominal: frozenset[str]
    stop: frozenset[str]
    endings: tuple[str, ...]
    suffixes: tuple[str, ...]


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


def _stem_set(entries: Iterable[str], particles: Sequence[str]) -> frozenset[str]:
    """Nouns of a list as written and without a particle (a Korean noun listed with its
    particle is kept with and without it; one that ends in a particle's syllable stays too)."""
    out: set[str] = set()
    for w in entries:
        norm = _norm(w.rstrip("*"))
        if norm:
            out |= {norm, _strip(norm, particles, keep=1)}
    return frozenset(out)


@functools.cache
def words() -> _Words:
    """The slot words (read once from :data:`WORDS_FILE`)."""
    data = tomllib.loads(WORDS_FILE.read_text(encoding="utf-8"))
    aspects = data["aspects"]
    condition = aspects["condition"]
    particles = tuple(sorted((_norm(p) for p in data["lexicon"]["particles"]), key=len,
                             reverse=True))

    def entries(values: Iterable[str]) -> tuple[_Entry, ...]:
        return tuple(_entry(w) for w in values if w.strip())

    return _Words(
        labels={a: entries(aspects.get(a, {}).get("label", ())) for a in SLOT_ASPECTS},
        cues={a: entries(aspects.get(a, {}).get("cue", ())) for a in SLOT_ASPECTS},
        nouns={a: entries(aspects.get(a, {}).get("noun", ())) for a in SLOT_ASPECTS},
        enter=entries(aspects["whereabouts"].get("enter", ())),
        group=entries(aspects["allegiance"].get("group", ())),
        frame=entries(aspects["goal"].get("frame", ())),
        body=_stem_set((*condition.get("noun", ()), *condition.get("label", ())), particles),
        place=_stem_set(aspects["whereabouts"].get("noun", ()), particles),
        vague=frozenset(_norm(w) for w in data["label_context"].get("vague", ())),
        time=frozenset(_norm(w) for w in data["label_context"].get("time", ())),
        rule_labels=entries(data["rule"]["label"]),
        rule_cues=entries(data["rule"]["cue"]),
        payoff=entries(data["payoff"]["cue"]),
        payoff_empty=entries(data["payoff"]["empty"]),
        payoff_hold=entries(data["payoff"]["hold"]),
        not_after=tuple(_norm(w) for w in data["payoff"]["not_after"]),
        not_before=frozenset(_norm(w) for w in data["payoff"]["not_before"]),
        none_after=frozenset(_norm(w) for w in data["payoff"]["none_after"]),
        intent_before=frozenset(_norm(w) for w in data["payoff"]["intent_before"]),
        # the word on its own, then a Hangul verb
        not_verb=tuple(re.compile(r"(?:^|\s)" + re.escape(_norm(w)) + r"\s+[\uac00-\ud7a3]")
                       for w in data["payoff"]["not_verb"]),
        particles=particles,
        object_particles=tuple(_norm(p) for p in data["lexicon"]["object_particles"]),
        adnominal=frozenset(_norm(p) for p in data["lexicon"]["adnominal"]),
        stop=frozenset(_norm(w) for w in data["lexicon"]["stop"]),
        endings=tuple(sorted((_norm(e) for e in data["lexicon"]["endings"]), key=len,
                             reverse=True)),
        suffixes=tuple(sorted((_norm(e) for e in data["lexicon"]["suffixes"]), key=len,
                              reverse=True)),
    )


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    aspect: str
    kind: str  # "label" | "cue" | "noun" | "enter" | "group" | "frame"
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
        scan(w.nouns[aspect], aspect, "noun")
    scan(w.enter, "whereabouts", "enter")
    scan(w.group, "allegiance", "group")
    scan(w.frame, "goal", "frame")
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[_Match] = []
    for m in found:
        inside = any(k.start <= m.start and m.end <= k.end and (k.end - k.start) > (m.end - m.start)
                     for k in kept)
        if not inside:
            kept.append(m)
    return kept


BODY_GAP = 4
"""Words before a verb of going searched for the state of the body it may name."""


def _to_body(body: str, m: _Match) -> bool:
    """Whether a verb of going names a state of the body as where one goes or as what goes
    ("returned to health"; in Korean "came back to the body", "the fever went up"): then it
    says a condition, not a whereabouts."""
    w = words()
    head = m.word.split()[0] if " " in m.word and not m.word.isascii() else ""
    before = (body[:m.start] + head).split()
    after = body[m.end:].split()
    if m.word.isascii():
        if not m.word.endswith((" to", " into")) or not after:
            return False
        return re.sub(r"\W+$", "", after[0]) in w.body
    for token in reversed(before[-BODY_GAP:]):  # its destination, or its subject
        raw = re.sub(r"\W+$", "", token)
        forms = {raw, _strip(raw, w.particles, keep=1)}
        if forms & w.place:
            return False
        if forms & w.body and not raw.endswith(w.object_particles):
            return True  # (the body as its object is neither: "entrusted himself to a hut")
    return False


def slot_scores(text: str, keyword: str = "", names: Iterable[str] = ()) -> dict[str, float]:
    """The evidence for each aspect in a character fact's text and keyword (pure)."""
    return dict(_slot_scores(text, keyword, tuple(names)))


@functools.lru_cache(maxsize=16384)
def _slot_scores(text: str, keyword: str, names: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    body = _without_names(text, names)
    scores = dict.fromkeys(SLOT_ASPECTS, 0.0)
    counted: set[tuple[str, str]] = set()
    found = _matches(body)
    groups = any(m.kind == "group" for m in found)
    nouns = dict.fromkeys(SLOT_ASPECTS, 0.0)
    framed = False
    for m in found:
        if (m.aspect, m.word) in counted or _before_time(body, m) or _after_time(body, m):
            continue
        counted.add((m.aspect, m.word))
        if m.kind in ("noun", "group"):  # a place, a body part, a side one can take
            nouns[m.aspect] = min(NOUN_CAP, nouns[m.aspect] + NOUN)
        elif m.aspect == "whereabouts" and _to_body(body, m):
            scores["condition"] += CUE
        elif m.kind == "enter":
            scores["allegiance" if groups else "whereabouts"] += JOIN if groups else CUE
        elif m.kind == "label" and m.word in words().vague:
            continue  # a label that names no one slot ("status": a rank or a condition)
        elif m.kind == "label":
            if _labelled(body, m.start, m.end) or _heading(body, m.start, m.end):
                scores[m.aspect] += LABEL
            elif _resultative(body, m):
                continue  # "in the state of having climbed the tower": the verb says the slot
            elif len(m.word) >= 2 and not m.word.isascii():
                scores[m.aspect] += CUE
        elif _heading(body, m.start, m.end):  # a word of the slot heading its own field
            scores[m.aspect] += LABEL
        elif m.kind == "frame":
            framed = True
        else:
            scores[m.aspect] += CUE
    for aspect, more in nouns.items():
        scores[aspect] += more
    if framed and not any(v for a, v in scores.items() if a != "goal"):
        scores["goal"] += CUE  # a decision about nothing else the words name: a goal
    key = name_key(keyword)
    if key:
        w = words()
        for aspect in SLOT_ASPECTS:
            if any(name_key(e.word) == key for e in w.labels[aspect]):
                scores[aspect] += LABEL
            elif any(e.pattern.search(_norm(keyword)) for e in w.cues[aspect]):
                scores[aspect] += CUE
    return tuple(scores.items())


def _before_time(body: str, m: _Match) -> bool:
    """Whether the slot word at ``m`` is followed by a word of the story's time ("back in
    scene 83"): then it points to a moment, not to the slot."""
    after = re.findall(r"\w+", body[m.end:])[:1]
    return bool(after) and _time_word(after[0])


def _after_time(body: str, m: _Match) -> bool:
    """Whether the word of going at ``m`` comes right after a word of the story's time (Korean
    "scene 101 arrived, and ...": the scene arrives, no one does)."""
    if m.aspect != "whereabouts":
        return False
    before = re.findall(r"\w+", body[:m.start])[-1:]
    return bool(before) and _time_word(before[0])


def _time_word(token: str) -> bool:
    """Whether ``token`` is a word of the story's time ("scene"), with or without a particle."""
    return token in words().time or _strip(token, words().particles) in words().time


_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
_FINAL_N = 4
"""Index of the final consonant ㄴ in a Hangul syllable's code ((code - 0xAC00) % 28)."""


def _adnominal(word: str) -> bool:
    """Whether a Korean word ends as a verb modifying a noun ("climbed", "locked up", "being"
    before a noun): a last syllable with the final n (nieun), or one of ``adnominal``."""
    last = word[-1:]
    if not _SYLLABLE.fullmatch(last):
        return False
    return last in words().adnominal or (ord(last) - 0xAC00) % 28 == _FINAL_N


def _resultative(body: str, m: _Match) -> bool:
    """Whether a Korean slot name at ``m`` is the noun of a resultative (the word for "state"
    after a modifying verb: "in the state of having climbed"): right after a verb that
    modifies it and is not itself a word of a slot."""
    if m.word.isascii():
        return False
    before = re.findall(r"\w+", body[:m.start])[-1:]
    if not before or len(before[0]) < 2 or not _adnominal(before[0]):
        return False
    w = words()
    return _strip(before[0], w.particles, keep=1) not in w.body | w.place


@functools.lru_cache(maxsize=16384)
def listed_aspect(text: str) -> str:
    """The aspect the word list alone gives ``text`` ("" when none wins clearly)."""
    scores = slot_scores(text)
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] == 0 or ranked[0] < 2 * ranked[1]:
        return ""
    return max(scores, key=lambda a: scores[a])


def _bigrams(text: str) -> set[str]:
    key = text_key(text)
    return {key[i : i + 2] for i in range(len(key) - 1)} if len(key) > 1 else {key} - {""}


def _content(text: str, names: Iterable[str]) -> str:
    """What a fact says once names and numbers are left out (they are shared by its versions
    or differ between restatements)."""
    return re.sub(r"\d+", " ", _without_names(text, names))


def _unframed(text: str, frame: frozenset[str]) -> str:
    """``text`` without the words that are only the story's frame (:attr:`Lexicon.frame`)."""
    if not frame:
        return text
    kept = [tok for tok in text.split() if not (words_of(tok) and words_of(tok) <= frame)]
    return " ".join(kept)


def similarity(a: str, b: str, names: Iterable[str] = (),
               frame: frozenset[str] = frozenset()) -> float:
    """Bigram Dice similarity of two facts' content (names, numbers and the story's frame
    words left out)."""
    ga = _bigrams(_unframed(_content(a, names), frame))
    gb = _bigrams(_unframed(_content(b, names), frame))
    return 2 * len(ga & gb) / (len(ga) + len(gb)) if ga and gb else 0.0


def words_of(text: str, names: Iterable[str] = ()) -> set[str]:
    """The content words of a fact (pure): names, numbers, function words and Korean
    particles left out ("반란군과" and "반란군의" are one word)."""
    w = words()
    out: set[str] = set()
    for raw in re.split(r"[^\w]+|\d+|_", _without_names(text, names)):
        if not raw or raw in w.stop or raw in w.particles:
            continue  # a particle left where a name was taken out
        word = _strip(raw, w.particles if not raw.isascii() else ())
        word = _strip(word, w.endings if not raw.isascii() else w.suffixes)
        if (len(word) >= 2 or not word.isascii()) and word not in w.stop:
            out.add(word)  # one syllable is a word in Korean and Chinese ("탑", "독")
    return out


def _strip(word: str, endings: Sequence[str], keep: int = 2) -> str:
    """``word`` without the first of ``endings`` it ends in, if ``keep`` characters remain
    (a Latin word one more)."""
    least = keep + (1 if word.isascii() else 0)
    for ending in endings:
        if word.endswith(ending) and len(word) - len(ending) >= least:
            return word[: -len(ending)]
    return word


class Lexicon:
    """The story's own slot words: which words its facts of a known aspect used (pure).

    Built from ``(aspect, text)`` of character facts whose slot is known and that the word list
    confirms (:func:`listed_aspect`: a fact the lexicon itself placed teaches nothing); a word
    counts for an aspect when :data:`LEARNED_SHARE` of the facts that used it were of that
    aspect, so words facts of every slot share (names, "scene", a template) say nothing.
    """

    def __init__(self, facts: Iterable[tuple[str, str]] = (), names: Iterable[str] = ()
                 ) -> None:
        names = list(names)
        self.counts: dict[str, dict[str, int]] = {}
        spread: dict[str, dict[str, int]] = {}
        per_aspect: dict[str, int] = {}
        for aspect, text in facts:
            if aspect not in SLOT_ASPECTS:
                continue
            for word in words_of(text, names):  # every placed fact: how widely a word is used
                per = spread.setdefault(word, {})
                per[aspect] = per.get(aspect, 0) + 1
            if listed_aspect(text) != aspect:
                continue  # taught only by facts the word list confirms: no learning in circles
            per_aspect[aspect] = per_aspect.get(aspect, 0) + 1
            for word in words_of(text, names):
                per = self.counts.setdefault(word, {})
                per[aspect] = per.get(aspect, 0) + 1
        # Until the story has stated a few facts of several slots, every word looks telling
        # (the first facts' template words would teach one slot for everything).
        self.ready = sum(n >= LEARNED_READY for n in per_aspect.values()) >= 2
        # The story's frame words: used by facts of several slots, none of them mostly ("in
        # scene 12", a record's heading). Two facts sharing them are not one fact said again.
        self.frame = frozenset(
            w for w, per in spread.items()
            if len(per) >= 2 and max(per.values()) / sum(per.values()) < LEARNED_SHARE)

    def __len__(self) -> int:
        return len(self.counts)

    def evidence(self, text: str, names: Iterable[str] = ()) -> dict[str, float]:
        """Learned evidence per aspect for ``text`` (:data:`LEARNED` per telling word, at most
        :data:`LEARNED_CAP` per aspect)."""
        out = dict.fromkeys(SLOT_ASPECTS, 0.0)
        if not self.ready:
            return out
        for word in words_of(text, names) - self.frame:
            per = self.counts.get(word)
            if not per:
                continue
            total = sum(per.values())
            aspect, count = max(per.items(), key=lambda kv: kv[1])
            if total >= LEARNED_MIN and count / total >= LEARNED_SHARE:
                out[aspect] = min(LEARNED_CAP, out[aspect] + LEARNED)
        return out


LEARNED = 0.5
"""Weight of a learned word: less than a word of the list, so it decides where the list has
nothing to say and never overrides it."""
LEARNED_MIN = 2
LEARNED_SHARE = 0.8
LEARNED_CAP = 1.0
LEARNED_READY = 5
"""Facts of a slot the story must have stated before its words teach anything."""


def _restated(text: str, holders: Sequence[Holder], names: Iterable[str],
              frame: Iterable[str] = ()) -> Holder | None:
    """The one current fact ``text`` restates in other words: it shares a number or code, or
    words no other current fact of the character has, with that one only. ``frame``: the
    story's words that facts of every slot use (:attr:`Lexicon.frame`); they identify none."""
    if not holders:
        return None
    names, frame = list(names), frozenset(frame)
    said, own = marks(text), words_of(text, names) - frame
    theirs = {h.id: words_of(h.text, names) - frame for h in holders}
    tagged = {h.id: marks(h.text) for h in holders}
    common = {w for h in holders for w in theirs[h.id]
              if sum(w in theirs[o.id] for o in holders) > 1}
    shared = {m for h in holders for m in tagged[h.id]
              if sum(m in tagged[o.id] for o in holders) > 1}
    # a number or code only one current fact carries identifies it (the same marks, the same
    # fact); so do words only it has
    score = {h.id: 2 * len((said & tagged[h.id]) - shared) + len((own & theirs[h.id]) - common)
             for h in holders}
    best = max(holders, key=lambda h: score[h.id])
    rest = [score[h.id] for h in holders if h.id != best.id]
    if score[best.id] >= 2 and (not rest or score[best.id] >= 2 * max(rest) + 1):
        return best
    return None

SENSE_TOP = 3
"""How many of the nearest examples of a slot its semantic score averages."""
SENSE_SURE = 0.003
"""Lead of the most similar slot over the next at which the semantic guess is sure. Sentence
embeddings put every sentence of one language close to every other (multilingual-e5-small:
cosines of 0.80-0.90), so the lead, not the cosine, is what tells. Calibrated on the studied
wordings ``a`` and ``b`` of ``bench/consistency.py``, never on its held-out wording: of their
facts the word list cannot place, the wrong guesses led by less than 0.0003 and most right
ones by more than 0.003; in a whole run (``b``, Korean) a few wrong guesses between two slots
the words both point to still led by more (one Korean idiom by 0.02): the limit of a small
model."""
SENSE_UNSURE = 0.0005
"""Lead below which the semantic guess says nothing (the fact stays a note); between this and
:data:`SENSE_SURE` it is unsure: the fact is kept beside the current facts of the two slots and
the pair flagged."""
SENSE_EXAMPLES = 3
"""Facts of a slot the story must hold before they count as its examples."""
SENSE_PER_SLOT = 60
"""Newest facts per slot taken as the story's own examples."""

Embed = Callable[[list[str]], list[list[float]]]
"""Vectors of many texts in one call (a memory's ``embed_texts``)."""


class VectorCache:
    """Unit vectors of texts, embedded once per process and memory (thread-safe).

    The semantic slot inference compares a fact with prototype sentences and with the story's
    own facts: those are embedded once here, not again for every beat.
    """

    def __init__(self, embed: Embed, limit: int = 20000) -> None:
        self._embed = embed
        self._limit = limit
        self._vectors: dict[str, tuple[float, ...]] = {}
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """The unit vectors of ``texts`` (missing ones embedded in ONE call)."""
        with self._lock:
            need = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        fresh = dict(zip(need, (_unit(v) for v in self._embed(need)), strict=True)) if need \
            else {}
        with self._lock:
            out = [fresh[t] if t in fresh else self._vectors[t] for t in texts]
            if len(self._vectors) + len(fresh) > self._limit:
                self._vectors.clear()  # a long session: start again rather than grow
            self._vectors.update(fresh)
        return out


def _unit(vector: Sequence[float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return tuple(x / norm for x in vector)


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@functools.cache
def prototypes() -> dict[str, tuple[str, ...]]:
    """Example sentences per slot, note, rule and description (read once from
    :data:`PROTOTYPES_FILE`), every language together."""
    data = tomllib.loads(PROTOTYPES_FILE.read_text(encoding="utf-8"))
    return {kind: tuple(t for texts in by_lang.values() for t in texts)
            for kind, by_lang in data.items()}


def _top(vector: Sequence[float], others: Sequence[Sequence[float]], k: int = SENSE_TOP) -> float:
    sims = sorted((_cos(vector, o) for o in others), reverse=True)[:k]
    return sum(sims) / len(sims) if sims else 0.0


class SlotSense:
    """Which slot a fact is about by meaning, when its words say nothing (an embedding).

    A fact (names and numbers left out) is compared with the prototype sentences of each slot
    (:data:`PROTOTYPES_FILE`, ko/en/zh) and, once the story holds a few, with its own facts of
    each slot; the two similarities are averaged. A fact nearer the note prototypes (a liking,
    a trait, a past) than any slot's stays a note.

    Args:
        vectors: a :class:`VectorCache` over the memory's embeddings.
        examples: ``(aspect, text)`` of the story's facts whose slot is known.
        names: the cast's names and aliases (left out of every text).
        frame: the story's frame words (:attr:`Lexicon.frame`), left out too: a template
            the story words facts of one slot in would otherwise make them alike.
    """

    def __init__(self, vectors: VectorCache, examples: Iterable[tuple[str, str]] = (),
                 names: Iterable[str] = (), frame: Iterable[str] = ()) -> None:
        self._vectors = vectors
        self._names = tuple(names)
        self._frame = frozenset(frame)
        per: dict[str, list[str]] = {}
        for aspect, text in examples:
            if aspect in SLOT_ASPECTS and listed_aspect(text) == aspect:  # no learning in circles
                kept = per.setdefault(aspect, [])
                if len(kept) < SENSE_PER_SLOT:
                    kept.append(self._strip(text))
        self._examples = {a: list(dict.fromkeys(t)) for a, t in per.items()}
        self._kinds = prototypes()

    def _strip(self, text: str) -> str:
        return _unframed(" ".join(_content(text, self._names).split()), self._frame)

    @property
    def aspects(self) -> tuple[str, ...]:
        """The aspects that have prototype sentences (the ones it can tell apart)."""
        return tuple(a for a in SLOT_ASPECTS if self._kinds.get(a))

    def slot_scores(self, text: str, among: Sequence[str] = ()
                    ) -> tuple[dict[str, float], float]:
        """Semantic score per aspect of ``among`` and the note prototypes' score."""
        among = [a for a in (among or self.aspects) if a in self.aspects]
        body = self._strip(text)
        if not body or not among:
            return dict.fromkeys(among, 0.0), 1.0
        kinds = [*among, "note"]
        proto = {k: list(self._kinds.get(k, ())) for k in kinds}
        ready = all(len(self._examples.get(a, ())) >= SENSE_EXAMPLES for a in self.aspects)
        wanted = [body, *(t for k in kinds for t in proto[k])]
        if ready:
            wanted += [t for a in among for t in self._examples[a]]
        vecs = dict(zip(wanted, self._vectors(wanted), strict=True))
        me = vecs[body]
        by_proto = {k: _top(me, [vecs[t] for t in proto[k]]) for k in kinds}
        out = {}
        for a in among:
            out[a] = by_proto[a]
            if ready:
                out[a] = (by_proto[a] + _top(me, [vecs[t] for t in self._examples[a]])) / 2
        note = by_proto["note"]
        # a note is judged against the slots' prototypes alone (it has no story examples)
        return out, (note if note >= max(by_proto[a] for a in among) else -1.0)

    def guess(self, text: str, among: Sequence[str] = ()) -> tuple[str, float, str]:
        """The most likely aspect among ``among``, its lead over the next, and the next ("",
        0, "" when the fact reads as a note)."""
        scores, note = self.slot_scores(text, among)
        if note >= 0 or not scores:
            return "", 0.0, ""
        ranked = sorted(scores, key=lambda a: -scores[a])
        if len(ranked) == 1:
            return ranked[0], 1.0, ""
        return ranked[0], scores[ranked[0]] - scores[ranked[1]], ranked[1]

    def is_rule(self, text: str) -> float:
        """How much nearer the rule prototypes than the description ones ``text`` is."""
        body = self._strip(text)
        rules, plain = list(self._kinds.get("rule", ())), list(self._kinds.get("description", ()))
        vecs = dict(zip([body, *rules, *plain], self._vectors([body, *rules, *plain]),
                        strict=True))
        return _top(vecs[body], [vecs[t] for t in rules]) - _top(vecs[body],
                                                                   [vecs[t] for t in plain])


SENSE_QUOTE = 0.01
"""Lead of the nearest open thread over the next (and over every line of the ``event``
prototypes) at which a beat line quotes it by meaning; calibrated on the studied payoff
wordings ``a`` and ``b`` (right matches led by 0.018 or more)."""


def _reveal_lead(rest: str, vectors: VectorCache) -> float:
    """How much nearer the ``reveal`` prototypes than the ``mention`` ones ``rest`` (what a line
    says besides a thread's words, :func:`_besides`) is: its verb, roughly, "came out" or "was
    remembered". Only its content words are compared (a bracket or "from the" is no verb)."""
    content = " ".join(sorted(words_of(rest)))
    reveal, mention = list(prototypes().get("reveal", ())), list(prototypes().get("mention", ()))
    if not content or not reveal or not mention:
        return 0.0
    vecs = vectors([content, *reveal, *mention])
    return _top(vecs[0], vecs[1:1 + len(reveal)]) - _top(vecs[0], vecs[1 + len(reveal):])


def sensed_thread(line: str, threads: Sequence[tuple[str, str, str]], vectors: VectorCache,
                  *, need_reveal: bool = False) -> str | None:
    """The id of the open thread a beat line quotes by meaning (an embedding), or ``None``.

    ``threads`` holds ``(id, keyword, text)``. Numbers are left out of the comparison but must
    agree ("the seal of scene 12" is not the seal of scene 18); the line must be nearer the
    thread than the next thread and than any everyday event (``event`` prototypes) by
    :data:`SENSE_QUOTE`. ``need_reveal`` (an event line, which may only mention a thread):
    the line must also pay it off (:func:`pays_off`, with the meaning of what it adds).
    """
    said = marks(line)
    body = " ".join(_content(line, ()).split())
    if not body:
        return None
    cands = [(mid, " ".join(_content(text, ()).split())) for mid, _, text in threads
             if not (marks(text) and said and not marks(text) & said)]
    cands = [(mid, text) for mid, text in cands if text]
    if not cands:
        return None
    events = list(prototypes().get("event", ()))
    texts = [body, *(t for _, t in cands), *events]
    vecs = dict(zip(texts, vectors(texts), strict=True))
    me = vecs[body]
    sims = sorted(((_cos(me, vecs[t]), mid) for mid, t in cands), reverse=True)
    rival = max([_cos(me, vecs[t]) for t in events] + [s for s, _ in sims[1:]], default=-1.0)
    if sims[0][0] - rival < SENSE_QUOTE:
        return None
    found = sims[0][1]
    if need_reveal:
        text = next(t for mid, _, t in threads if mid == found)
        if not pays_off(line, text, vectors, quoted=False):
            return None
    return found


def guess_aspect(
    text: str,
    keyword: str = "",
    *,
    holders: Sequence[Holder] = (),
    names: Iterable[str] = (),
    lexicon: Lexicon | None = None,
    sense: SlotSense | None = None,
) -> SlotGuess:
    """The aspect a character fact states, from its words and the character's current facts.

    Args:
        text: the fact.
        keyword: its keyword (may be a slot name: "상태", "whereabouts").
        holders: the character's current facts that hold a slot (one per aspect).
        names: names to leave out of the text (the cast): they are not words about a slot.
        lexicon: the story's own slot words (:class:`Lexicon`), besides the word list.
        sense: the semantic inference (:class:`SlotSense`), asked only when the words point
            nowhere or two ways and no current fact is restated.
    """
    names = list(names)
    scores = slot_scores(text, keyword, names)
    listed = dict(scores)
    frame = lexicon.frame if lexicon is not None else frozenset()
    if lexicon is not None:
        for aspect, more in lexicon.evidence(text, names).items():
            scores[aspect] += more
    ranked = sorted(SLOT_ASPECTS, key=lambda a: (-scores[a], SLOT_ASPECTS.index(a)))
    best, first = ranked[0], scores[ranked[0]]
    second = scores[ranked[1]]
    sims = {h.id: similarity(text, h.text, names, frame) for h in holders}

    def restates(among: Sequence[Holder], least: float) -> Holder | None:
        order = sorted(among, key=lambda h: -sims[h.id])
        if not order or sims[order[0].id] < least:
            return None
        rest = [sims[h.id] for h in holders if h.id != order[0].id]
        return order[0] if not rest or sims[order[0].id] - max(rest) >= MARGIN else None

    if not any(listed.values()):  # no word of the list, at most what the story taught
        found = restates(holders, SAME_SLOT)
        if found is not None:  # a current fact said again keeps its slot
            return SlotGuess(found.aspect, True, (), scores)
    if first > 0 and (second == 0 or first >= 2 * second):
        return SlotGuess(best, True, (), scores)
    if first > 0:
        close = [a for a in SLOT_ASPECTS if scores[a] * 2 > first]
        among = [h for h in holders if h.aspect in close]
        found = restates(among, TIE_BREAK) or _restated(text, among, names, frame)
        if found is not None:
            return SlotGuess(found.aspect, True, (), scores)
        if sense is not None and all(a in sense.aspects for a in close):
            aspect, lead, _ = sense.guess(text, close)
            if aspect and lead >= SENSE_SURE:
                return SlotGuess(aspect, True, (), scores)
        doubt = tuple(h.id for h in holders if h.aspect in close)
        return SlotGuess("", not doubt, doubt, scores)
    found = restates(holders, SAME_SLOT) or _restated(text, holders, names, frame)
    if found is not None:
        return SlotGuess(found.aspect, True, (), scores)
    if sense is not None:
        aspect, lead, runner = sense.guess(text)
        if aspect and lead >= SENSE_SURE:
            return SlotGuess(aspect, True, (), scores)
        if aspect and lead >= SENSE_UNSURE:
            doubt = tuple(h.id for h in holders if h.aspect in (aspect, runner))
            return SlotGuess("", not doubt, doubt, scores)
    return SlotGuess("", True, (), scores)


SENSE_RULE = 0.005
"""How much nearer the rule prototypes than the description ones a setting must be to read as
a world rule by meaning; calibrated on the studied rule wordings ``a`` and ``b`` (all but one
of 192 led by more) and on plain descriptions (none led by more than 0.002)."""


def guess_rule(
    text: str, keyword: str, *, current_rule: bool, same_keyword: Sequence[str] = (),
    sense: SlotSense | None = None,
) -> RuleGuess:
    """Whether a setting fact is a world rule.

    Args:
        text: the fact.
        keyword: its keyword (a rule's slot; without one it cannot be a rule).
        current_rule: a current rule has this keyword (then a new fact with it revises it).
        same_keyword: ids of current plain settings with this keyword (an earlier statement
            of the rule the extractor did not mark).
        sense: the semantic inference, asked when no label says it: a setting nearer the
            rule prototypes than the description ones by :data:`SENSE_RULE` is a rule.
    """
    if not name_key(keyword):
        return RuleGuess(False)
    if current_rule:
        return RuleGuess(True)
    w = words()
    body = _norm(f"{keyword} {text}")
    if any(e.pattern.search(body) for e in w.rule_labels):
        return RuleGuess(True)
    if sense is not None and sense.is_rule(text) >= SENSE_RULE:
        return RuleGuess(True)
    if any(e.pattern.search(body) for e in w.rule_cues) and same_keyword:
        return RuleGuess(False, False, tuple(same_keyword))
    return RuleGuess(False)


def _stems(text: str) -> set[str]:
    """:func:`words_of` with a particle taken off a one-syllable Korean noun too ("sword"
    with a subject or an object particle is one word): for naming a planted thing."""
    particles = words().particles
    return {_strip(w, particles, keep=1) if not w.isascii() else w for w in words_of(text)}


NEGATION_REACH = 6
"""Characters after a Korean cue in which a negation negates it (a "-ji mot-haetda" ending:
"could not find")."""
NEGATION_WORDS = 3
"""Words before an English cue in which a negation negates it ("was never found")."""
INTENT_WORDS = 2
"""Words before an English cue in which a modal makes it not yet done ("will be found"); "to"
does right before it ("to retrieve", "to be found")."""


_CHANGED = re.compile(r"\bno (?:more|longer)\b")
""""No more", "no longer": a change ("secret no more" is revealed), not a negation."""


def _negating_words(text: str, last: int = 0) -> bool:
    """Whether ``text`` (normalised; its ``last`` words only, if given) holds an English
    negation ("not", "never", "wasn't", "nobody's")."""
    tokens = re.findall(r"[\w'’]+", _CHANGED.sub(" ", text))[-last:]
    return any(re.sub(r"['’]s$", "", t) in words().not_before or t.endswith(("n't", "n’t"))
               for t in tokens)


def _negated(body: str, m: re.Match[str]) -> bool:
    """Whether the cue matched at ``m`` in ``body`` (normalised) is negated."""
    w = words()
    if any(n in body[m.end():m.end() + NEGATION_REACH] for n in w.not_after):
        return True
    after = re.findall(r"[\w'’]+", body[m.end():])[:1]
    if m.group().isascii() and after and after[0] in w.none_after:
        return True  # "turned up nothing"
    before = body[:m.start()]
    near = re.findall(r"[\w'’]+", before)[-INTENT_WORDS:]
    if near[-1:] == ["to"] or near == ["to", "be"] or set(near) & (w.intent_before - {"to"}):
        return True
    return _negating_words(before, NEGATION_WORDS) or any(
        before.rstrip().endswith(n) for n in w.not_before if not n.isascii())


def _negation(body: str) -> bool:
    """Whether ``body`` (normalised) negates its predicate anywhere (a Korean "-ji mot" or
    "-ji an" ending, "not", a Chinese "mei you")."""
    w = words()
    return (any(n in body for n in w.not_after) or _negating_words(body)
            or any(p.search(body) for p in w.not_verb)
            or any(n in body for n in w.not_before if not n.isascii() and len(n) >= 2))



def reveals(text: str) -> bool:
    """Whether a line says something planted came to light ("came to light", "turned out"),
    by a word that is not negated ("was never found", a Korean "could not find")."""
    body = _norm(text)
    return any(not _negated(body, m) for e in words().payoff for m in e.pattern.finditer(body))


def _thread_word(word: str, theirs: set[str]) -> bool:
    """Whether ``word`` is one of a thread's words ``theirs`` (:func:`_stems`): the same word,
    or a Korean word with the same first two syllables (another form of its verb: "hidden" as
    a modifier and as the predicate)."""
    if word in theirs or (not word.isascii() and _stems(word) & theirs):
        return True
    return not word.isascii() and len(word) >= 2 and any(
        not t.isascii() and len(t) >= 2 and t[:2] == word[:2] for t in theirs)


def _besides(line: str, thread: str) -> str:
    """What ``line`` says besides ``thread``'s own words and the numbers: the tokens not made of
    the thread's words (function words kept: "not", "still" are what a line says of it)."""
    theirs = _stems(thread)
    kept = []
    for tok in re.sub(r"\d+", " ", line).split():
        own = words_of(tok)
        if not (own and all(_thread_word(w, theirs) for w in own)):
            kept.append(tok)
    return " ".join(kept)


def pays_off(line: str, thread: str, vectors: VectorCache | None = None, *,
             quoted: bool = True) -> bool:
    """Whether a beat line that names the open thread ``thread`` (its text) pays it off.

    What the line says besides the thread's own words decides (:func:`_besides`): that nothing
    was found (``empty``) -> no; a word that it came to light -> yes, unless every such word is
    negated or only meant ("was never found", "to be found"); that it still waits (``hold``:
    remembered, sought, planned, on the way, still hidden) or a negation -> no. Short of
    all of these, a line that ``quoted`` the thread by its words pays it off when it adds words
    of its own ("secured", "put to use": the verbs of finding are an open class, a line that
    only names the thread adds none); a line found by meaning only when what it adds is nearer
    the ``reveal`` prototypes than the ``mention`` ones (needs ``vectors``).
    """
    rest = _besides(line, thread)
    body, w = _norm(rest), words()
    if any(e.pattern.search(body) for e in w.payoff_empty):
        return False
    cues = [_negated(body, m) for e in w.payoff for m in e.pattern.finditer(body)]
    if cues:  # found, unless every word of finding it has is negated or only meant
        return not all(cues)
    if any(e.pattern.search(body) for e in w.payoff_hold) or _negation(body):
        return False
    if quoted:
        return bool(words_of(rest))
    return vectors is not None and _reveal_lead(rest, vectors) > 0


def quoted_thread(
    line: str, threads: Sequence[tuple[str, str, str]], *, need_reveal: bool = False
) -> str | None:
    """The id of the open thread ``line`` quotes, or ``None`` (none, or two equally).

    ``threads`` holds ``(id, keyword, text)``. A line quotes a thread that it names by keyword,
    or whose words it mostly repeats (:data:`QUOTE` of the bigrams) without other numbers or
    codes ("the seal of scene 12" is not the seal of scene 18). ``need_reveal``: the line
    must also pay it off (:func:`pays_off`; an event line, unlike a ``pays_off`` one, may
    mention a thread without paying it off).
    """
    if not line.strip():
        return None
    key, grams, said = text_key(line), _bigrams(line), marks(line)
    # Words most open threads share ("hidden", "in scene") tell none of them apart; the rest
    # (the thing, the place) name one, in any order and with any particles.
    spoken = _stems(line)
    own = {mid: _stems(text) for mid, _, text in threads}
    usual = {w for w in set().union(*own.values())
             if (n := sum(w in o for o in own.values())) >= 2 and 2 * n > len(threads)}
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
        telling = own[mid] - usual
        named = len(telling & spoken)
        # two of its own words, or one beside the thread's own numbers ("the sword of scene 12")
        enough = named >= MIN_WORDS or bool(named and planted and planted <= said)
        if telling and enough and named / len(telling) >= QUOTE:
            share = max(share, named / len(telling))
        if share >= QUOTE and (shared >= MIN_QUOTE or enough):
            scored.append((share + (0.5 if planted and planted <= said else 0.0), mid))
    scored.sort(key=lambda p: -p[0])
    if not scored or (len(scored) > 1 and scored[0][0] - scored[1][0] < 0.05):
        return None
    found = scored[0][1]
    if need_reveal and not pays_off(line, next(t for mid, _, t in threads if mid == found)):
        return None
    return found


__all__ = [
    "PROTOTYPES_FILE",
    "SLOT_ASPECTS",
    "WORDS_FILE",
    "Holder",
    "Lexicon",
    "RuleGuess",
    "SlotGuess",
    "SlotSense",
    "VectorCache",
    "guess_aspect",
    "guess_rule",
    "pays_off",
    "prototypes",
    "quoted_thread",
    "reveals",
    "sensed_thread",
    "similarity",
    "slot_scores",
    "words",
    "words_of",
]
