"""The deterministic checks of a serial's continuity report, over plain data (pure).

The inputs are what the memory holds after reading the serial (:class:`SerialInput`): the
scenes with their prose and design, the cast with aliases, the deaths, the versions of each
counted thing, the relations with the episode each began, the threads, and where characters
were seen (a scene's design, or a whereabouts). An adapter reads them from a project
(:mod:`aizac.application.continuity_report`); the bench builds them from a generator's truth.

* :func:`dead_acting` — a dead character is the subject of a sentence after the death
  (flashbacks, mourning and conditionals aside; quoted speech is not narration);
* :func:`name_variants` — a word one letter away from a known name or alias;
* :func:`changed_quantities` — a counted thing's new version with another number and no
  change stated;
* :func:`two_places` — one character in two places at one scene time;
* :func:`abandoned_threads` — an open thread untouched for ``gap`` episodes
  (:func:`aizac.continuity.ledger.overdue_threads` decides);

The speech level switched between a pair without a relation change is
:func:`aizac.dialogue.serial.speech_switches` (the dialogue layer reads levels).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from aizac.continuity.ledger import Thread, overdue_threads
from aizac.continuity.serial_report import SerialFinding, Spot
from aizac.continuity.text import (
    ALIVE,
    CONDITIONAL,
    DEATH,
    FLASHBACK,
    MOURNING,
    has_any,
    place_tokens,
)
from aizac.memory.facts import name_key
from aizac.text import Text, Verbatim
from aizac.text.particles import NOUN_PARTICLES, SUBJECT_PARTICLES

THREAD_GAP = 10
"""Episodes an open thread may go untouched before the report calls it abandoned."""
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_WORD = re.compile(r"[\uac00-\ud7a3]+|[A-Za-z][A-Za-z'-]+")
_SENTENCE = re.compile(r"[^.!?…。！？]+[.!?…。！？]*")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|「[^」]*」|『[^』]*』|‘[^’]*’")


@dataclass(frozen=True)
class SceneText:
    """One scene (an accepted beat): its prose's paragraphs and its design.

    ``first`` is the episode paragraph number of ``paragraphs[0]``."""

    episode: int
    first: int
    paragraphs: tuple[str, ...]
    beat: int | None = None
    location: str = ""
    time: str = ""
    characters: tuple[str, ...] = ()

    def spots(self) -> Iterator[Spot]:
        for offset, text in enumerate(self.paragraphs):
            yield Spot(self.episode, self.first + offset, text, self.beat)


@dataclass(frozen=True)
class Person:
    """A character: the canonical name and the aliases."""

    name: str
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Death:
    name: str
    at: Spot


@dataclass(frozen=True)
class Quantity:
    """One version of a counted thing (``supersedes``: the id of the version it replaced)."""

    id: str
    subject: str
    value: float
    at: Spot
    supersedes: str | None = None
    stated_change: bool = False


@dataclass(frozen=True)
class RelationChange:
    """A pair's relation as it began at ``episode`` (every version, the first too)."""

    a: str
    b: str
    label: str
    episode: int


@dataclass(frozen=True)
class ThreadFacts:
    id: str
    text: str
    planted: Spot
    touched: tuple[Spot, ...] = ()
    paid_off: Spot | None = None


@dataclass(frozen=True)
class Sighting:
    """A character at a place at a scene time (``time`` empty: unknown, never compared)."""

    name: str
    place: str
    time: str
    at: Spot


@dataclass(frozen=True)
class SerialInput:
    language: str
    scenes: tuple[SceneText, ...]
    cast: tuple[Person, ...] = ()
    deaths: tuple[Death, ...] = ()
    quantities: tuple[Quantity, ...] = ()
    relations: tuple[RelationChange, ...] = ()
    threads: tuple[ThreadFacts, ...] = ()
    sightings: tuple[Sighting, ...] = field(default=())

    def spots(self) -> Iterator[Spot]:
        for scene in sorted(self.scenes, key=lambda s: (s.episode, s.first)):
            yield from scene.spots()

    def canonical(self, name: str) -> str:
        key = name_key(name)
        for person in self.cast:
            if any(name_key(n) == key for n in person.names):
                return person.name
        return name


def _after(spot: Spot, mark: Spot) -> bool:
    return (spot.episode, spot.paragraph) > (mark.episode, mark.paragraph)


def _narration(paragraph: str) -> str:
    return _QUOTED.sub(" ", paragraph)


def _is_subject(sentence: str, form: str) -> bool:
    """Whether ``form`` (a name) is the subject of a clause of ``sentence``."""
    if _HANGUL.search(form):
        particles = "|".join(map(re.escape, SUBJECT_PARTICLES))
        pattern = rf"(?<![\uac00-\ud7a3]){re.escape(form)}(?:{particles})(?![\uac00-\ud7a3])"
        return re.search(pattern, sentence) is not None
    return re.search(rf"\b{re.escape(form)}\b(?!'s|’s)\s+[a-z]", sentence) is not None


def dead_acting(data: SerialInput) -> list[SerialFinding]:
    """A dead character the subject of a sentence after the death (one finding per paragraph
    and character)."""
    out: list[SerialFinding] = []
    quiet = (*FLASHBACK, *MOURNING, *DEATH, *ALIVE, *CONDITIONAL)
    for death in data.deaths:
        person = next((p for p in data.cast if name_key(p.name) == name_key(death.name)),
                      Person(death.name))
        forms = sorted({f for f in person.names if f.strip()}, key=len, reverse=True)
        for spot in data.spots():
            if not _after(spot, death.at):
                continue
            for sentence in _SENTENCE.findall(_narration(spot.quote)):
                if has_any(sentence, quiet):
                    continue
                if any(_is_subject(sentence, f) for f in forms):
                    out.append(SerialFinding(
                        "dead_character", spot, death.at,
                        Text("report.note.dead_character", name=Verbatim(person.name),
                             episode=death.at.episode)))
                    break
    return out


def one_apart(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter (replaced, added or left out)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _stem(word: str) -> str:
    """A Hangul word without its particle (the longest that leaves a word)."""
    if not _HANGUL.search(word):
        return word
    for particle in NOUN_PARTICLES:
        if word.endswith(particle) and len(word) > len(particle) + 1:
            return word[: -len(particle)]
    return word


def _long_enough(name: str) -> bool:
    """A name a one-letter variant can be told by: three syllables, or five Latin letters
    (a two-syllable name is one letter from too many ordinary words)."""
    return len(name) >= (3 if _HANGUL.search(name) else 5) and " " not in name.strip()


def name_variants(data: SerialInput) -> list[SerialFinding]:
    """Words one letter away from a known name or alias, used less often than it (the first
    use of each variant; its source: the name's first use)."""
    known = {n: p.name for p in data.cast for n in p.names if n.strip()}
    keys = {name_key(n) for n in known}
    targets = [n for n in known if _long_enough(n)]
    uses: Counter[str] = Counter()
    first: dict[str, Spot] = {}
    for spot in data.spots():
        for word in _WORD.findall(spot.quote):
            stem = _stem(word)
            uses[stem] += 1
            first.setdefault(stem, spot)
            if stem != word:
                uses[word] += 1
                first.setdefault(word, spot)
    out: list[SerialFinding] = []
    for word, count in uses.items():
        if name_key(word) in keys or not _long_enough(word):
            continue
        for name in targets:
            if one_apart(word, name) and count < uses[name] and not any(
                    name_key(word) in name_key(k) for k in known):
                if word != _stem(word) and _stem(word) in uses:
                    break  # the stem is the variant; it is reported itself
                out.append(SerialFinding(
                    "nomenclature", first[word], first.get(name),
                    Text("report.note.nomenclature", variant=Verbatim(word),
                         name=Verbatim(name))))
                break
    return out


def changed_quantities(data: SerialInput) -> list[SerialFinding]:
    """A version of a counted thing with another number than the one it superseded, and no
    change stated."""
    by_id = {q.id: q for q in data.quantities}
    out = []
    for q in data.quantities:
        old = by_id.get(q.supersedes or "")
        if old is None or q.stated_change or old.value == q.value:
            continue
        out.append(SerialFinding(
            "quantity", q.at, old.at,
            Text("report.note.quantity", subject=Verbatim(q.subject), old=_num(old.value),
                 new=_num(q.value))))
    return out


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _same_place(a: str, b: str) -> bool:
    ta, tb = place_tokens(a), place_tokens(b)
    return bool(ta & tb) or name_key(a) in name_key(b) or name_key(b) in name_key(a)


def two_places(data: SerialInput) -> list[SerialFinding]:
    """One character seen at two places at one scene time of one episode."""
    seen: dict[tuple[str, int, str], Sighting] = {}
    out = []
    ordered = sorted(data.sightings, key=lambda s: (s.at.episode, s.at.paragraph))
    for s in ordered:
        if not s.time.strip() or not s.place.strip():
            continue
        key = (name_key(data.canonical(s.name)), s.at.episode, name_key(s.time))
        before = seen.setdefault(key, s)
        if before is not s and not _same_place(before.place, s.place):
            out.append(SerialFinding(
                "geography", s.at, before.at,
                Text("report.note.geography", name=Verbatim(data.canonical(s.name)),
                     place=Verbatim(s.place), other=Verbatim(before.place),
                     time=Verbatim(s.time))))
    return out


def design_sightings(scenes: Iterable[SceneText],
                     cast: Sequence[Person] = ()) -> list[Sighting]:
    """Where each scene's design puts its characters, at the first paragraph naming them (else
    the scene's first)."""
    out = []
    for scene in scenes:
        if not scene.location.strip() or not scene.time.strip():
            continue
        for name in scene.characters:
            person = next((p for p in cast if name_key(name) in map(name_key, p.names)),
                          Person(name))
            spot = next((sp for sp in scene.spots()
                         if any(f and f in sp.quote for f in person.names)),
                        next(scene.spots(), None))
            if spot is not None:
                out.append(Sighting(person.name, scene.location, scene.time, spot))
    return out


def abandoned_threads(data: SerialInput, last: int, gap: int = THREAD_GAP
                      ) -> list[SerialFinding]:
    """Threads not paid off by ``last`` and not touched in the ``gap`` episodes before it."""
    threads = {t.id: t for t in data.threads}
    ledger = []
    for t in data.threads:
        if t.planted.episode > last or (t.paid_off is not None and t.paid_off.episode <= last):
            continue
        touches = [s.episode for s in t.touched if s.episode <= last]
        latest = max([t.planted.episode, *touches])
        ledger.append(Thread(t.id, "", t.text, t.planted.episode, latest, latest + gap, "open"))
    out = []
    for thread in overdue_threads(ledger, last):
        facts = threads[thread.memory_id]
        touched = [s for s in facts.touched if s.episode <= last]
        at = touched[-1] if touched else facts.planted
        out.append(SerialFinding(
            "abandoned_thread", at, facts.planted if touched else None,
            Text("report.note.abandoned_thread", episode=thread.last_advanced,
                 idle=last - thread.last_advanced)))
    return out


def deterministic_findings(data: SerialInput, last: int, *,
                           gap: int = THREAD_GAP) -> list[SerialFinding]:
    """Every check of this module (the speech levels are the dialogue layer's)."""
    return [*dead_acting(data), *name_variants(data), *changed_quantities(data),
            *two_places(data), *abandoned_threads(data, last, gap)]


__all__ = [
    "THREAD_GAP",
    "Death",
    "Person",
    "Quantity",
    "RelationChange",
    "SceneText",
    "SerialInput",
    "Sighting",
    "ThreadFacts",
    "abandoned_threads",
    "changed_quantities",
    "dead_acting",
    "design_sightings",
    "deterministic_findings",
    "name_variants",
    "one_apart",
    "two_places",
]
