"""Synthetic serial for the retrieval benchmark: deterministic chapters, facts and gold queries.

``SerialWorld(n_characters, seed)`` writes one chapter at a time (``next_chapter()``) as a list
of events to replay into a WriterMemory, and keeps the ground truth: which version of each fact
is current, and which memories are live under the forgetting rule (the same rule WriterMemory
implements: ``forget_at = last_turn + S * ln(10 / threshold)``, reinforcement adds 1 to S).
One chapter is one story turn.

What a chapter holds:
- a chapter summary (Story) and three beat summaries (for the short-term buffer);
- one-off trivia (Story) that is never mentioned again, so it decays and is forgotten;
- relation changes between present characters (the old version is superseded);
- character state changes (superseded), settings (mostly in the first chapters, a few changes
  later), and in chapters 1-3 pinned foreshadowing that matters at the end;
- "mentions": the current state and relations of the characters present are reinforced, as
  building their context pack would.

``queries_at(chapter)`` draws gold-labelled questions from the truth at that chapter; the
recorded model filters for them are in ``serial_gen_filters.py``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

FAMILY = [
    ("Kim", "김"), ("Lee", "이"), ("Park", "박"), ("Choi", "최"), ("Jung", "정"), ("Kang", "강"),
    ("Cho", "조"), ("Yoon", "윤"), ("Jang", "장"), ("Lim", "임"), ("Han", "한"), ("Oh", "오"),
    ("Seo", "서"), ("Shin", "신"), ("Kwon", "권"), ("Hwang", "황"), ("Ahn", "안"), ("Song", "송"),
]  # fmt: skip
GIVEN = [
    ("min", "민"), ("ji", "지"), ("seo", "서"), ("ha", "하"), ("jun", "준"), ("woo", "우"),
    ("yeon", "연"), ("soo", "수"), ("hyun", "현"), ("young", "영"), ("eun", "은"), ("jae", "재"),
    ("do", "도"), ("ho", "호"), ("na", "나"), ("rin", "린"), ("sung", "성"), ("tae", "태"),
]  # fmt: skip
RELATIONS = [
    "sworn allies", "bitter rivals", "secret lovers", "master and disciple", "old friends",
    "business partners", "enemies", "reluctant comrades", "sworn siblings", "strangers again",
]  # fmt: skip
STATES = [
    "gravely wounded", "in hiding", "imprisoned in the tower", "training in the mountains",
    "ruling the northern guild", "searching for a lost sister", "under a sleeping curse",
    "travelling with merchants", "recovering at the temple", "leading the rebel army",
]  # fmt: skip
ROLES = ["swordsman", "archivist", "smuggler", "healer", "court mage", "merchant", "guard"]
PLACES = [
    "Jade Gate", "Moonwell Temple", "Iron Harbour", "Cinder Market", "Azure Academy",
    "Frost Pass", "Willow Inn", "Obsidian Tower", "Red Lotus Pavilion", "Silent Archive",
    "Crane Bridge", "Salt Marsh", "Ember Forge", "Lantern District", "Tiger Shrine",
]  # fmt: skip
PLACE_FACTS = [
    "is sealed at dusk by the city watch", "is ruled by the merchant council",
    "hides a passage under its foundations", "was burned in the border war",
    "is guarded by oath-bound knights", "is open to pilgrims only in spring",
    "belongs to the northern guild", "is haunted by a drowned prince",
]  # fmt: skip
OMENS = [
    ("cracked seal", "A cracked jade seal lies at the bottom of the Moonwell; whoever breaks "
     "it frees the sea king."),
    ("silver mask", "The silver mask worn by the masked envoy belongs to the dead crown prince."),
    ("black comet", "The black comet returns once a century and marks the heir's awakening."),
    ("nameless sword", "The nameless sword in the archive answers only to royal blood."),
    ("red thread", "A red thread binds the two heirs: if one dies, so does the other."),
    ("stone oath", "The founders swore a stone oath to bury the true king's name."),
]  # fmt: skip
TRIVIA_ITEMS = ["river fish", "plum wine", "a paper lantern", "a bronze mirror", "rice cakes",
                "a silk fan", "pine incense", "a clay whistle", "dried persimmons", "a wool cap"]
TRIVIA_VERBS = ["bought", "lost", "sold", "was given", "found"]

STRENGTHS = {"Story": 10.0, "Character": 30.0, "CharacterRelation": 20.0, "NovelSetting": 40.0}
THRESHOLD = 1.0


@dataclass
class Character:
    name: str
    aliases: list[str]
    role: str
    home: str


@dataclass
class Fact:
    """One memory the serial writes (``key`` is the generator's id, ``id`` the store's)."""

    key: str
    text: str
    tag: str
    chapter: int
    character_name: str = ""
    character1: str = ""
    character2: str = ""
    keyword: str = ""
    pinned: bool = False
    foreshadow: bool = False
    aliases: list[str] = field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    strength: float = 0.0
    last_turn: int = 0

    def forget_at(self, threshold: float = THRESHOLD) -> float:
        return self.last_turn + self.strength * math.log(10.0 / threshold)

    def live(self, turn: int, margin: float = 0.0) -> bool:
        if self.superseded_by:
            return False
        return self.pinned or turn + margin <= self.forget_at()


@dataclass
class Event:
    """``remember`` (fact), ``supersede`` (fact replaces fact.supersedes), ``reinforce`` (keys),
    ``summary`` (short-term text)."""

    kind: str
    fact: Fact | None = None
    keys: list[str] = field(default_factory=list)
    text: str = ""


@dataclass
class Query:
    qid: str
    kind: str
    question: str
    chapter: int
    gold: list[str]
    """Keys that answer the question (empty for abstention queries)."""
    stale: list[str] = field(default_factory=list)
    """Keys that must not be served (forgotten or superseded answers)."""
    params: dict[str, str] = field(default_factory=dict)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if (a.casefold(), a) <= (b.casefold(), b) else (b, a)


class SerialWorld:
    """Deterministic serial: call ``next_chapter()`` repeatedly; ``queries_at`` for gold."""

    def __init__(self, n_characters: int = 40, seed: int = 7, main_cast: int = 8) -> None:
        if not 2 <= n_characters <= len(FAMILY) * len(GIVEN):
            raise ValueError("n_characters must be between 2 and 324")
        self.seed = seed
        rng = random.Random(seed)
        self.characters: list[Character] = []
        used: set[str] = set()
        while len(self.characters) < n_characters:
            fam, fam_h = rng.choice(FAMILY)
            (g1, h1), (g2, h2) = rng.sample(GIVEN, 2)
            name = f"{fam} {g1.capitalize()}{g2}"
            if name in used:
                continue
            used.add(name)
            self.characters.append(
                Character(name, [f"{fam_h}{h1}{h2}"], rng.choice(ROLES), rng.choice(PLACES))
            )
        self.main = [c.name for c in self.characters[:main_cast]]
        self.chapter = 0
        self.facts: dict[str, Fact] = {}
        self.current: dict[str, str] = {}  # slot ("rel:A|B", "state:A", "set:P") -> key
        self.versions: dict[str, list[str]] = {}  # slot -> keys oldest first
        self.trivia: list[str] = []
        self.omens: list[str] = []
        self.summaries: list[str] = []

    # -- writing -------------------------------------------------------------------------
    def _new(self, slot: str | None, fact: Fact) -> Event:
        fact.strength = STRENGTHS[fact.tag]
        fact.last_turn = self.chapter
        self.facts[fact.key] = fact
        if slot is None:
            return Event("remember", fact)
        old = self.current.get(slot)
        self.current[slot] = fact.key
        self.versions.setdefault(slot, []).append(fact.key)
        if old is None:
            return Event("remember", fact)
        fact.supersedes = old
        self.facts[old].superseded_by = fact.key
        return Event("supersede", fact)

    def _reinforce(self, keys: list[str]) -> Event:
        for key in keys:
            fact = self.facts[key]
            fact.strength += 1.0
            fact.last_turn = self.chapter
        return Event("reinforce", keys=keys)

    def next_chapter(self) -> list[Event]:
        """The events of the next chapter (the world's truth advances with them)."""
        self.chapter += 1
        c = self.chapter
        rng = random.Random(self.seed * 100_003 + c)
        events: list[Event] = []
        if c == 1:
            for ch in self.characters:
                events.append(self._new(None, Fact(
                    f"profile:{ch.name}", f"{ch.name} is a {ch.role} from the {ch.home}.",
                    "Character", 1, character_name=ch.name, keyword="profile",
                    aliases=ch.aliases)))
                events.append(self._new(f"state:{ch.name}", Fact(
                    f"state:{ch.name}:1", f"{ch.name} is {rng.choice(STATES)}.", "Character", 1,
                    character_name=ch.name, keyword="state")))
        if c <= 3:
            for kw, text in OMENS[(c - 1) * 2 : c * 2]:
                key = f"omen:{kw}"
                self.omens.append(key)
                events.append(self._new(None, Fact(key, text, "Story", c, keyword=kw,
                                                   pinned=True, foreshadow=True)))
        if c <= 5:
            for place in PLACES[(c - 1) * 3 : c * 3]:
                events.append(self._set_place(place, rng, c))
        elif rng.random() < 0.15:
            events.append(self._set_place(rng.choice(PLACES), rng, c))

        others = [ch.name for ch in self.characters if ch.name not in self.main]
        present = rng.sample(self.main, 3) + rng.sample(others, min(1, len(others)))
        place = rng.choice(PLACES)
        a, b = present[0], present[1]
        summary = f"Chapter {c}: {a} and {b} meet at the {place}."
        events.append(self._new(None, Fact(f"summary:{c}", summary, "Story", c, keyword=place)))
        self.summaries.append(summary)
        for beat in range(3):
            x, y = rng.sample(present, 2)
            events.append(Event("summary", text=f"Ch{c}.{beat + 1}: {x} confronts {y} "
                                f"about the {rng.choice(PLACES)}; {x} leaves angry."))
        for n in range(2):
            who = rng.choice(self.characters).name
            key = f"trivia:{c}:{n}"
            item, verb = rng.choice(TRIVIA_ITEMS), rng.choice(TRIVIA_VERBS)
            text = f"At the {place}, {who} {verb} {item} in chapter {c}."
            self.trivia.append(key)
            events.append(self._new(None, Fact(key, text, "Story", c, keyword=item)))

        if rng.random() < 0.6:
            x, y = _pair(*rng.sample(present, 2))
            slot = f"rel:{x}|{y}"
            n = len(self.versions.get(slot, [])) + 1
            rel = rng.choice(RELATIONS)
            events.append(self._new(slot, Fact(
                f"{slot}:{n}", f"{x} and {y} are {rel} (since chapter {c}).",
                "CharacterRelation", c, character1=x, character2=y, keyword=rel)))
        if rng.random() < 0.35:
            who = rng.choice(present)
            slot = f"state:{who}"
            n = len(self.versions.get(slot, [])) + 1
            events.append(self._new(slot, Fact(
                f"{slot}:{n}", f"{who} is {rng.choice(STATES)} (as of chapter {c}).",
                "Character", c, character_name=who, keyword="state")))

        mentioned: list[str] = []
        for who in present:
            mentioned.append(self.current[f"state:{who}"])
            mentioned.append(f"profile:{who}")
            for other in present:
                rel_key = self.current.get(f"rel:{who}|{other}")
                if rel_key:
                    mentioned.append(rel_key)
        mentioned.extend(self.current[f"set:{p}"] for p in (place,) if f"set:{p}" in self.current)
        fresh = {e.fact.key for e in events if e.fact is not None}
        keys = sorted({k for k in mentioned if k not in fresh and self.facts[k].live(c)})
        if keys:
            events.append(self._reinforce(keys))
        return events

    def _set_place(self, place: str, rng: random.Random, c: int) -> Event:
        slot = f"set:{place}"
        n = len(self.versions.get(slot, [])) + 1
        return self._new(slot, Fact(f"{slot}:{n}", f"The {place} {rng.choice(PLACE_FACTS)}.",
                                    "NovelSetting", c, keyword=place))

    # -- gold queries ------------------------------------------------------------------
    def queries_at(self, per_kind: int = 30, seed: int = 0) -> list[Query]:
        """Gold-labelled questions about the serial as it stands at the current chapter."""
        c = self.chapter
        rng = random.Random(self.seed * 7919 + c * 31 + seed)
        queries: list[Query] = []

        def take(items: list, n: int = per_kind) -> list:
            return rng.sample(items, min(n, len(items)))

        def add(kind: str, question: str, gold: list[str], stale: list[str] | None = None,
                **params: str) -> None:
            queries.append(Query(f"{kind}-{c}-{len(queries)}", kind, question, c, gold,
                                 stale or [], params))

        live_rel = [s for s, k in self.current.items()
                    if s.startswith("rel:") and self.facts[k].live(c, margin=1)]
        for slot in take(live_rel):
            x, y = slot[4:].split("|")
            add("relation", f"What is the relationship between {x} and {y} now?",
                [self.current[slot]], self.versions[slot][:-1], a=x, b=y)
        live_state = [s for s, k in self.current.items()
                      if s.startswith("state:") and self.facts[k].live(c, margin=1)]
        for slot in take(live_state):
            who = slot[6:]
            add("state", f"What is {who}'s current state?", [self.current[slot]],
                self.versions[slot][:-1], name=who)
        live_set = [s for s, k in self.current.items()
                    if s.startswith("set:") and self.facts[k].live(c, margin=1)]
        for slot in take(live_set):
            place = slot[4:]
            add("setting", f"What do we know about the {place}?", [self.current[slot]],
                self.versions[slot][:-1], keyword=place)
        for key in self.omens:
            fact = self.facts[key]
            add("pinned", f"What was foreshadowed early about the {fact.keyword}?", [key],
                keyword=fact.keyword)
        multi = [s for s in self.versions if s.startswith("rel:") and len(self.versions[s]) > 1
                 and self.facts[self.current[s]].live(c, margin=1)]
        for slot in take(multi, max(1, per_kind // 2)):
            x, y = slot[4:].split("|")
            add("history", f"How has the relationship between {x} and {y} changed over time?",
                list(reversed(self.versions[slot]))[:5], a=x, b=y)
        gone = [k for k in self.trivia if not self.facts[k].live(c, margin=-1)]
        for key in take(gone, max(1, per_kind // 2)):
            fact = self.facts[key]
            add("forgotten", f"{fact.text.split(',')[1].strip().rstrip('.')}?", [], [key],
                keyword=fact.keyword)
        for slot in take(multi, max(1, per_kind // 2)):
            x, y = slot[4:].split("|")
            old = self.facts[self.versions[slot][-2]]
            add("superseded", f"Are {x} and {y} still {old.keyword}?", [],
                self.versions[slot][:-1], a=x, b=y)
        return queries

    def all_summaries_text(self) -> str:
        """The "all summaries so far" baseline context."""
        return "\n".join(self.summaries)
