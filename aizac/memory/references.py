"""The extractor refers, the store decides: what an extraction is offered, and what the
references of its reply mean (pure: plain data in, plain data out).

The extraction prompt shows the model what the store already knows, each item with a short id
(an :class:`Offer`): the cast (``c1`` and the canonical name, with the aliases the story has
confirmed), the current facts of each cast member and the relations among them (``f1``,
numbered, with their slot), the live world rules (``r1``) and the open threads (``t1``). The reply
refers to them by id: who a fact is about (or ``new`` with a name), which facts it makes untrue
(``replaces``), which rule it revises, which threads the beat pays off.

:func:`resolve` checks every reference against the offer and turns the reply into plain
operations for the store (:class:`Resolution`), and names each problem the model can fix
(:class:`Problem`: a catalogue-like key and the values to quote — the writer renders them in the
prompt's language and the repair turn sends them back). Nothing here matches the words of a
fact: a name counts only when it equals (:func:`~aizac.memory.facts.name_key`) a name or alias
the store holds, and what a fact replaces is what the model pointed at. Slots that hold one
value are superseded by the store from (character, slot) alone, so a reply that leaves
``replaces`` out costs nothing there; ``replaces`` matters where the slot cannot say it (a
rule's revision, a fact filed without its aspect, a relation told as a character's fact).

The same function gives the best reading of a reply whose problems outlived the repair turns
(``salvage=True``): what is valid is kept, what is not is kept aside with a ``flag`` for the
writer (:data:`aizac.memory.records.FLAGS`) rather than failing the accept or guessing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from aizac.memory.facts import OTHER, name_key, text_key

NEW = "new"
"""What ``who`` says for someone the cast list does not hold (with the name in ``name``)."""
WORDS: frozenset[str] = frozenset({NEW, "id"})
"""The words of the reference vocabulary every prompt language uses as they are (like the
schema's field names): ``new``, and ``id`` for what the lists number."""
_REF = re.compile(r"^[\s\[\(#\"'`]*([cfrt])\s*-?\s*(\d{1,4})[\s\]\)\"'`.,]*$", re.IGNORECASE)
KINDS = {"c": "cast", "f": "fact", "r": "rule", "t": "thread"}
MIN_NAME = 2
"""Shortest name (as its key) looked for in a fact's text: one letter names nobody."""


_CJK = re.compile(r"^[\uac00-\ud7a3\u4e00-\u9fff]{3,4}$")


def name_parts(name: str) -> tuple[str, ...]:
    """The parts of a name a text may call the character by: each word of a name of several
    words ("Mira" of "Mira Kang"), the given name of a three- or four-syllable Korean or Chinese
    name written as one word ("하린" of "정하린"). Used only to check a reference (a fact filed
    under one character whose text names another), never to decide one."""
    words = name.split()
    if len(words) > 1:
        return tuple(w for w in words if len(name_key(w)) >= MIN_NAME)
    if _CJK.match(name):
        return (name[-2:],)
    return ()


def parse_ref(value: str) -> tuple[str, str] | None:
    """``("c", "c3")`` for a reference written ``c3``, ``[C3]``, ``#c3`` ...; ``None`` when the
    value is not shaped like an id (a name, a pronoun, empty)."""
    found = _REF.match(value or "")
    if found is None:
        return None
    letter = found.group(1).lower()
    return letter, f"{letter}{int(found.group(2))}"


# ----------------------------------------------------------------------------------- offer
@dataclass(frozen=True)
class CastMember:
    """One character the reply may refer to."""

    ref: str
    name: str
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class OfferedFact:
    """A current fact of the offered cast: a character's state (``about`` one ref) or the
    relation of a pair (``about`` two refs), with its slot key and the slot's label; a pair of
    the scene without a relation yet has an entry with no ``memory_id``."""

    ref: str
    memory_id: str
    about: tuple[str, ...]
    slot: str
    label: str
    text: str

    @property
    def relation(self) -> bool:
        return len(self.about) == 2


@dataclass(frozen=True)
class OfferedRule:
    """A world rule in force; a revision names it by ``ref`` and inherits its ``lineage``."""

    ref: str
    memory_id: str
    keyword: str
    text: str
    lineage: str


@dataclass(frozen=True)
class OfferedThread:
    """Foreshadowing still open; a payoff names it by ``ref``."""

    ref: str
    memory_id: str
    keyword: str
    text: str
    planted: str = ""


@dataclass(frozen=True)
class Offer:
    """What one extraction is shown, with its ids.

    ``known`` maps every name and alias of the whole cast (offered or not) as
    :func:`~aizac.memory.facts.name_key` to the canonical name: a reply that writes a known
    name instead of an id is understood; ``scene`` holds the names the beat itself uses for
    its characters (the planner's), which a reply may confirm as aliases.
    """

    cast: tuple[CastMember, ...] = ()
    facts: tuple[OfferedFact, ...] = ()
    rules: tuple[OfferedRule, ...] = ()
    threads: tuple[OfferedThread, ...] = ()
    known: Mapping[str, str] = field(default_factory=dict)
    scene: tuple[str, ...] = ()

    def member(self, ref: str) -> CastMember | None:
        return next((m for m in self.cast if m.ref == ref), None)

    def member_named(self, name: str) -> CastMember | None:
        canonical = self.known.get(name_key(name))
        return next((m for m in self.cast if m.name == canonical), None)

    def fact(self, ref: str) -> OfferedFact | None:
        return next((f for f in self.facts if f.ref == ref), None)

    def rule(self, ref: str) -> OfferedRule | None:
        return next((r for r in self.rules if r.ref == ref), None)

    def thread(self, ref: str) -> OfferedThread | None:
        return next((t for t in self.threads if t.ref == ref), None)

    def canonical(self, name: str) -> str | None:
        """The canonical name of a known name or alias, else ``None``."""
        return self.known.get(name_key(name)) if name_key(name) else None

    @property
    def empty(self) -> bool:
        return not (self.cast or self.facts or self.rules or self.threads)


def build_offer(
    cast: Sequence[tuple[str, Sequence[str]]],
    facts: Iterable[tuple[str, tuple[str, ...], str, str, str]] = (),
    rules: Iterable[tuple[str, str, str, str]] = (),
    threads: Iterable[tuple[str, str, str, str]] = (),
    *,
    known: Mapping[str, Sequence[str]] | None = None,
    scene: Iterable[str] = (),
) -> Offer:
    """Number what is offered (pure).

    Args:
        cast: ``(canonical name, aliases)`` in the order to show.
        facts: ``(memory id, about, slot, label, text)``; ``about`` holds canonical names of
            ``cast`` (one, or the two of a pair); facts about anyone else are left out.
        rules: ``(memory id, keyword, text, lineage)``.
        threads: ``(memory id, keyword, text, planted)``.
        known: the whole cast (canonical name -> aliases), offered or not; default ``cast``.
        scene: the names the beat uses for its characters.
    """
    members = tuple(CastMember(f"c{n}", name, tuple(aliases))
                    for n, (name, aliases) in enumerate(cast, 1))
    ref_of = {m.name: m.ref for m in members}
    kept = [(mid, about, slot, label, text) for mid, about, slot, label, text in facts
            if about and all(a in ref_of for a in about)]
    offered = tuple(OfferedFact(f"f{n}", mid, tuple(ref_of[a] for a in about), slot, label, text)
                    for n, (mid, about, slot, label, text) in enumerate(kept, 1))
    everyone = list(known.items()) if known is not None else list(cast)
    names: dict[str, str] = {}
    for name, _ in everyone:
        names.setdefault(name_key(name), name)  # canonical names first: they win over aliases
    for name, aliases in everyone:
        for alias in aliases:
            names.setdefault(name_key(alias), name)
    for member in members:
        names.setdefault(name_key(member.name), member.name)
    return Offer(
        cast=members, facts=offered,
        rules=tuple(OfferedRule(f"r{n}", *row) for n, row in enumerate(rules, 1)),
        threads=tuple(OfferedThread(f"t{n}", *row) for n, row in enumerate(threads, 1)),
        known={k: v for k, v in names.items() if k}, scene=tuple(scene),
    )


def render_cast(offer: Offer) -> list[str]:
    """One line per cast member: ``c1 한서아 (서아, 협회장)``."""
    return [f"{m.ref} {m.name}" + (f" ({', '.join(m.aliases)})" if m.aliases else "")
            for m in offer.cast]


def render_facts(offer: Offer, *, relations: bool | None = None) -> list[str]:
    """One line per current fact: ``f3 [c1 condition] 다리를 다쳤다``, ``f4 [c1-c2 relation]
    ...`` (``relations``: only relations, only states, or both when ``None``)."""
    return [f"{f.ref} [{'-'.join(f.about)} {f.label}] {f.text}" for f in offer.facts
            if relations is None or f.relation == relations]


def render_rules(offer: Offer) -> list[str]:
    """``r1 [마나] 마나는 달이 뜰 때만 회복된다``."""
    return [f"{r.ref} [{r.keyword}] {r.text}" if r.keyword else f"{r.ref} {r.text}"
            for r in offer.rules]


def render_threads(offer: Offer) -> list[str]:
    """``t1 [복선1] 깨진 인장이 우물 속에 숨겨졌다 (3-2)``."""
    return [(f"{t.ref} [{t.keyword}] {t.text}" if t.keyword else f"{t.ref} {t.text}")
            + (f" ({t.planted})" if t.planted else "") for t in offer.threads]


# --------------------------------------------------------------------------------- the reply
@dataclass(frozen=True)
class CharacterNote:
    """A character fact as the reply gives it (``path``: where it stands in the reply)."""

    path: str
    who: str
    text: str
    aspect: str = OTHER
    name: str = ""
    feature: str = ""
    replaces: tuple[str, ...] = ()


@dataclass(frozen=True)
class RelationNote:
    path: str
    a: str
    b: str
    text: str
    replaces: tuple[str, ...] = ()


@dataclass(frozen=True)
class SettingNote:
    """A setting; ``revises`` is a rule ref, ``"new"``, or ``None`` when the reply said
    nothing."""

    path: str
    keyword: str
    text: str
    rule: bool = False
    revises: str | None = None


@dataclass(frozen=True)
class StoryNote:
    path: str
    text: str
    keyword: str = ""
    foreshadow: bool = False


@dataclass(frozen=True)
class Reference:
    """A bare reference to a character (a voice card's ``who``, a speech pair's speaker or
    listener) or a thread (a payoff, with the keyword the reply gives it)."""

    path: str
    value: str
    keyword: str = ""


@dataclass(frozen=True)
class Reply:
    """Everything one extraction reply states, in the store's terms."""

    characters: tuple[CharacterNote, ...] = ()
    relations: tuple[RelationNote, ...] = ()
    settings: tuple[SettingNote, ...] = ()
    story: tuple[StoryNote, ...] = ()
    payoffs: tuple[Reference, ...] = ()
    people: tuple[Reference, ...] = ()
    """Other references to characters (voices, speech pairs), resolved to names."""


# ------------------------------------------------------------------------------- decisions
@dataclass(frozen=True)
class Problem:
    """What the model must fix: ``key`` names the sentence (the prompt words' ``reference``
    table), ``values`` fill it; ``path`` is where it stands in the reply."""

    key: str
    path: str
    values: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PlacedCharacter:
    """A character fact for the store: ``name`` is canonical (or the new character's name),
    ``outdates`` the memory ids it makes untrue, ``alias`` a name form the reply confirmed."""

    name: str
    aspect: str
    text: str
    feature: str = ""
    outdates: tuple[str, ...] = ()
    alias: str = ""
    new: bool = False
    flag: str = ""


@dataclass(frozen=True)
class PlacedRelation:
    a: str
    b: str
    text: str
    outdates: tuple[str, ...] = ()
    flag: str = ""


@dataclass(frozen=True)
class PlacedSetting:
    """A setting; a rule carries the lineage it continues (``""``: a new rule) and the
    memory id of the version it revises."""

    keyword: str
    text: str
    rule: bool = False
    lineage: str = ""
    revises: str = ""
    flag: str = ""
    ends: tuple[str, ...] = ()
    """Other listed versions of the rule it revises (the same rule said twice, each in force):
    they stop being current with it."""


@dataclass(frozen=True)
class PlacedStory:
    text: str
    keyword: str = ""
    foreshadow: bool = False
    flag: str = ""


@dataclass
class Resolution:
    """What a reply means for the store, and what the model must fix first."""

    characters: list[PlacedCharacter] = field(default_factory=list)
    relations: list[PlacedRelation] = field(default_factory=list)
    settings: list[PlacedSetting] = field(default_factory=list)
    story: list[PlacedStory] = field(default_factory=list)
    payoffs: list[str] = field(default_factory=list)
    """Memory ids of the threads the beat pays off."""
    people: dict[str, str] = field(default_factory=dict)
    """Path -> canonical name of each bare character reference that resolved."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Name forms confirmed for a character this reply: alias -> canonical name."""
    problems: list[Problem] = field(default_factory=list)


def _keyword_differs(said: str, listed: str) -> bool:
    """Whether a reply's keyword names another thing than the listed item it refers to (both
    given, not the same key): the id was a slip, or the keyword was."""
    return bool(name_key(said) and name_key(listed)) and name_key(said) != name_key(listed)


def _keywords_agree(one: str, other: str) -> bool:
    """Whether two rules' keywords may name one thing: either unsaid, or one's key within
    the other's ('게이트' and '게이트 주기'; 'mana' and 'death' do not)."""
    a, b = name_key(one), name_key(other)
    return not a or not b or a in b or b in a


def _names_only(text: str, keyword: str, other: str) -> bool:
    """Whether ``text`` names ``keyword`` and not ``other`` (keys compared as the store does)."""
    said, mine, theirs = text_key(text), name_key(keyword), name_key(other)
    return bool(mine) and mine in said and not (theirs and theirs in said)


QUESTIONS = frozenset({"pair_as_fact", "echoes_rule"})
"""Problems that ask what the reply means rather than say it is wrong: asked once per call
(the same reply again is the model's answer)."""


def _trigrams(text: str) -> set[str]:
    letters = "".join(ch for ch in text.casefold() if ch.isalnum())
    return {letters[i:i + 3] for i in range(len(letters) - 2)}


RESTATED = 0.75
"""The share of the shorter text's letter trigrams the other must hold for two rule texts to
be one rule said twice (a label, a scene number or a word around it); a revision that
changes what the rule says falls below it and is asked for its reference as before."""


def _restated(mine: set[str], theirs: set[str]) -> float:
    shorter = min(len(mine), len(theirs))
    return len(mine & theirs) / shorter if shorter >= 6 else 0.0


def restates(text: str, other: str) -> bool:
    """Whether ``text`` and ``other`` say one rule (pure): letter trigrams of the shorter held
    by the longer, in any script."""
    return _restated(_trigrams(text), _trigrams(other)) >= RESTATED


def restated_rule(text: str, rules: Sequence[OfferedRule]) -> OfferedRule | None:
    """The listed rule ``text`` says again, if any (pure; :func:`restates`): the closest one
    (versions of one rule listed twice are that rule's twins, ended with it)."""
    mine = _trigrams(text)
    scored = [(_restated(mine, _trigrams(rule.text)), -n, rule) for n, rule in enumerate(rules)]
    best = max(scored, default=None, key=lambda x: (x[0], x[1]))
    return best[2] if best is not None and best[0] >= RESTATED else None


def _listing(offer: Offer, kind: str) -> str:
    """The offered ids of one kind, as a problem quotes them."""
    if kind == "cast":
        return ", ".join(f"{m.ref} {m.name}" for m in offer.cast) or "-"
    if kind == "rule":
        return ", ".join(r.ref for r in offer.rules) or "-"
    if kind == "thread":
        return ", ".join(t.ref for t in offer.threads) or "-"
    return ", ".join(f.ref for f in offer.facts) or "-"


class _Resolver:
    def __init__(self, offer: Offer, salvage: bool, flags: Mapping[str, str],
                 asked: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.offer = offer
        self.salvage = salvage
        self.asked = asked
        self.flags = dict(flags)
        self.out = Resolution()
        self.scene = {name_key(n) for n in offer.scene if name_key(n)}
        self._names: re.Pattern[str] | None = None
        self._owner: dict[str, str] = {}

    def named(self, text: str) -> list[str]:
        """The offered cast members ``text`` names by a name or alias the store holds (exact,
        longest form first; a Latin-letter name as a whole word), in order of appearance.

        This is the one use of a fact's words here, and it only checks a reference: the names
        are the store's own data, never a word list."""
        if self._names is None:
            owners: dict[str, set[str]] = {}
            for m in self.offer.cast:
                for form in {f for n in m.names() for f in (n, *name_parts(n))}:
                    if len(name_key(form)) >= MIN_NAME:
                        owners.setdefault(form, set()).add(m.name)
            # a part two members share (a family name) names neither
            forms = sorted(((f, next(iter(o))) for f, o in owners.items() if len(o) == 1),
                           key=lambda f: -len(f[0]))
            self._owner = {form.casefold(): name for form, name in forms}
            parts = [re.escape(form) for form, _ in forms]
            self._names = re.compile(
                r"(?<![A-Za-z])(?:" + "|".join(parts) + r")(?![A-Za-z])", re.IGNORECASE
            ) if parts else re.compile(r"(?!)")
        found = [self._owner[m.group(0).casefold()] for m in self._names.finditer(text)]
        return list(dict.fromkeys(found))

    def flag(self, path: str) -> str | None:
        """The flag another check put on the note at ``path`` (``"drop"``: leave it out),
        ``""`` for none."""
        said = [f for p, f in self.flags.items() if p == path or p.startswith(path + ".")]
        return "drop" if "drop" in said else (said[0] if said else "")

    def problem(self, key: str, path: str, **values: str) -> None:
        if key in QUESTIONS and (key, path) in self.asked:
            return  # asked once: the model's answer stands
        self.out.problems.append(Problem(key, path, values))

    # ------------------------------------------------------------------ who is it about
    def person(self, path: str, who: str, name: str = "") -> tuple[str, bool] | None:
        """``(canonical or new name, is new)`` for a reference to a character, or ``None``
        (a problem was noted)."""
        offer = self.offer
        raw = " ".join((who or "").split())
        ref = parse_ref(raw)
        if ref is not None and ref[0] == "c":
            member = offer.member(ref[1])
            if member is None:
                self.problem("unknown_cast", path, value=raw, offered=_listing(offer, "cast"))
                return None
            self._confirm(path, member, name)
            return member.name, False
        if name_key(raw) == NEW or not raw:
            if not name.strip():
                self.problem("new_without_name", path, offered=_listing(offer, "cast"))
                return None
            known = offer.canonical(name)
            return (known, False) if known else (" ".join(name.split()), True)
        known = offer.canonical(raw)
        if known is not None:
            return known, False
        self.problem("not_in_cast", path, value=raw, offered=_listing(offer, "cast"))
        return None

    def _confirm(self, path: str, member: CastMember, name: str) -> None:
        """A name form the reply gives for an id'ed member is learned as an alias when the
        beat itself calls someone by it (the planner listed it) and no one else holds it."""
        form = " ".join((name or "").split())
        key = name_key(form)
        if not key or key in {name_key(n) for n in member.names()}:
            return
        holder = self.offer.known.get(key)
        if holder is not None and holder != member.name:
            self.problem("name_of_other", path, value=form, ref=member.ref,
                         other=f"{self._ref_of(holder)} {holder}".strip())
            return
        if key in self.scene:
            self.out.aliases.setdefault(form, member.name)

    def _ref_of(self, name: str) -> str:
        member = next((m for m in self.offer.cast if m.name == name), None)
        return member.ref if member is not None else ""

    def _name_of(self, ref: str) -> str:
        member = self.offer.member(ref)
        return f"{ref} {member.name}" if member is not None else ref

    # ------------------------------------------------------------------ what it replaces
    def replaced(self, path: str, refs: Sequence[str]) -> list[OfferedFact]:
        out: list[OfferedFact] = []
        for raw in refs:
            ref = parse_ref(raw)
            fact = self.offer.fact(ref[1]) if ref is not None and ref[0] == "f" else None
            if fact is None:
                self.problem("unknown_fact", path, value=raw,
                             offered=_listing(self.offer, "fact"))
                continue
            if fact not in out:
                out.append(fact)
        return out

    def character(self, note: CharacterNote) -> None:
        who = self.person(f"{note.path}.who", note.who, note.name)
        if who is None:
            if self.salvage:  # kept aside as an event of the beat, for the writer to place
                self.out.story.append(PlacedStory(note.text, keyword=note.who[:30],
                                                  flag="unplaced"))
            return
        name, new = who
        ref = "" if new else self._ref_of(name)
        facts = self.replaced(f"{note.path}.replaces", note.replaces)
        mine = [f for f in facts if ref and f.about == (ref,)]
        pairs = [f for f in facts if ref and f.relation and ref in f.about]
        others = [f for f in facts if f not in mine and f not in pairs]
        for fact in others:
            self.problem("other_subject", f"{note.path}.replaces", value=fact.ref,
                         about=", ".join(self._name_of(r) for r in fact.about),
                         ref=ref or note.name)
        if pairs and not mine and len({f.about for f in pairs}) == 1:
            # A change of a pair's relation filed as one character's fact: the fact it
            # replaces says which slot it is (the store decides from the reference).
            a, b = (self.offer.member(r) for r in pairs[0].about)
            if a is not None and b is not None:
                self.out.relations.append(PlacedRelation(
                    a.name, b.name, note.text,
                    tuple(f.memory_id for f in pairs if f.memory_id)))
                return
        named = self.named(note.text)
        unsure = bool(ref and named and name not in named and not note.name.strip())
        if unsure:  # the text names someone else, never the one it is filed under
            self.problem("names_other", f"{note.path}.who", ref=ref, name=name,
                         named=", ".join(f"{self._ref_of(n)} {n}" for n in named))
        slots = {f.label for f in [*mine, *pairs]}
        aspect = note.aspect or OTHER
        if aspect == OTHER and not facts and not unsure:
            self._pair_told_as_fact(note, ref, named)
        flag = ""
        if len(slots) > 1 or (slots and aspect != OTHER and aspect not in slots):
            self.problem("merged", f"{note.path}.replaces",
                         facts=", ".join(f"{f.ref} ({f.label})" for f in [*mine, *pairs]),
                         aspect=aspect)
            flag = "merged"
        elif slots and aspect == OTHER:
            aspect = next(iter(slots))  # filed without its aspect: the replaced fact says it
        feature = note.feature
        if aspect.startswith("appearance:"):
            aspect, feature = "appearance", feature or aspect.split(":", 1)[1]
        self.out.characters.append(PlacedCharacter(
            name, aspect, note.text, feature=feature,
            outdates=tuple(f.memory_id for f in [*mine, *pairs] if f.memory_id),
            new=new, flag=flag or ("unplaced" if unsure else "")))

    def _pair_told_as_fact(self, note: CharacterNote, ref: str, named: list[str]) -> None:
        """A fact of no slot whose text names its character and exactly one other, a pair
        the offer lists (their relation, or the scene's pair with none yet), may be their
        relation told as one character's fact, which would then stay current beside the
        pair's next relation: the model is asked which it is, by the pair's ids. Kept as the
        character's fact when the repair turns run out (an event of the two is one)."""
        others = {self._ref_of(n) for n in named} - {ref, ""}
        if not ref or len(others) != 1:
            return
        other = next(iter(others))
        entry = next((f for f in self.offer.facts
                      if f.relation and set(f.about) == {ref, other}), None)
        if entry is None:
            return
        self.problem("pair_as_fact", f"{note.path}.aspect", ref=ref, other=other,
                     name=self._name_of(other).split(" ", 1)[-1],
                     replaces=entry.ref if entry.memory_id else "-")

    def relation(self, note: RelationNote) -> None:
        a = self.person(f"{note.path}.a", note.a)
        b = self.person(f"{note.path}.b", note.b)
        if a is None or b is None:
            return
        if name_key(a[0]) == name_key(b[0]):
            self.problem("same_pair", note.path, value=note.a)
            return
        refs = {self._ref_of(a[0]), self._ref_of(b[0])} - {""}
        named = self.named(note.text)
        others = [n for n in named if n not in (a[0], b[0])]
        unsure = bool(others and not {a[0], b[0]} <= set(named))
        if unsure:  # the text names someone outside the pair, and not the pair itself
            self.problem("names_other_pair", note.path, pair=" - ".join(sorted(refs)),
                         named=", ".join(f"{self._ref_of(n)} {n}" for n in named))
        facts = self.replaced(f"{note.path}.replaces", note.replaces)
        kept = []
        for fact in facts:
            if fact.relation and set(fact.about) == refs:
                kept.append(fact)
            else:
                self.problem("other_pair", f"{note.path}.replaces", value=fact.ref,
                             about=", ".join(self._name_of(r) for r in fact.about),
                             pair=" - ".join(sorted(refs)) or f"{a[0]} - {b[0]}")
        self.out.relations.append(PlacedRelation(a[0], b[0], note.text,
                                                 tuple(f.memory_id for f in kept if f.memory_id),
                                                 flag="unplaced" if unsure else ""))

    def setting(self, note: SettingNote) -> None:
        raw = (note.revises or "").strip()
        ref = parse_ref(raw) if raw else None
        rule = self.offer.rule(ref[1]) if ref is not None and ref[0] == "r" else None
        same = restated_rule(note.text, self.offer.rules) if note.rule or raw else None
        if rule is not None and not _keyword_differs(note.keyword, rule.keyword):
            # the words restate the rule referred to, or name its keyword and not the other
            # rule's (two rules may say one sentence): reference and words agree
            if (same is None or same is rule or restates(note.text, rule.text)
                    or _names_only(note.text, rule.keyword, same.keyword)):
                self._revise(note, rule)
                return
            # its words are another listed rule's, its id and keyword this one's: a slip, or
            # this rule revised to what the other says. Asked once (the same reply again is
            # the model's answer); set aside as the rule its words restate if the turns run out
            path = f"{note.path}.revises"
            if ("echoes_rule", path) in self.asked:
                self._revise(note, rule)
                return
            self.problem("echoes_rule", path, value=same.ref, keyword=same.keyword,
                         text=same.text[:60], ref=rule.ref, own=rule.keyword)
            self._revise(note, same, flag="unplaced")
            return
        if not note.rule and not raw:  # a fact of the world, not a rule: nothing to refer to
            self.out.settings.append(PlacedSetting(note.keyword, note.text, False))
            return
        # What the reply refers to did not settle it; the rule's own words may: a listed rule
        # said again in other words around it is that rule (the store's text, not a word list).
        path = f"{note.path}.revises"
        if rule is not None:  # the reply names one rule and means another: never revised by a slip
            self.problem("other_rule", path, value=rule.ref, keyword=rule.keyword,
                         said=note.keyword)
        elif same is not None:
            self.problem("restated", path, value=same.ref, keyword=same.keyword,
                         text=same.text[:60])
        elif name_key(raw) == NEW:
            self.out.settings.append(PlacedSetting(note.keyword, note.text, True))
            return
        elif ref is None and not raw:
            if not self.offer.rules:
                self.out.settings.append(PlacedSetting(note.keyword, note.text, note.rule))
                return
            self.problem("rule_unsaid", path, offered=_listing(self.offer, "rule"))
        else:
            self.problem("unknown_rule", path, value=raw, offered=_listing(self.offer, "rule"))
        if same is not None:  # set aside after the repair turns: it revises what it restates
            self._revise(note, same, flag="unplaced")
        else:
            self.out.settings.append(PlacedSetting(note.keyword, note.text, True,
                                                   flag="unplaced"))

    def _revise(self, note: SettingNote, rule: OfferedRule, flag: str = "") -> None:
        # a twin is the rule said twice: a rule of another keyword may say the same sentence
        twins = tuple(r.memory_id for r in self.offer.rules
                      if r is not rule and r.memory_id and restates(r.text, rule.text)
                      and _keywords_agree(r.keyword, rule.keyword))
        self.out.settings.append(PlacedSetting(note.keyword or rule.keyword, note.text, True,
                                               lineage=rule.lineage, revises=rule.memory_id,
                                               flag=flag, ends=twins))

    def story(self, note: StoryNote) -> None:
        self.out.story.append(PlacedStory(note.text, note.keyword, note.foreshadow))

    def place(self, note: CharacterNote | RelationNote | SettingNote | StoryNote) -> None:
        if isinstance(note, CharacterNote):
            self.character(note)
        elif isinstance(note, RelationNote):
            self.relation(note)
        elif isinstance(note, SettingNote):
            self.setting(note)
        else:
            self.story(note)

    def payoff(self, ref_note: Reference) -> None:
        ref = parse_ref(ref_note.value)
        thread = self.offer.thread(ref[1]) if ref is not None and ref[0] == "t" else None
        if thread is None:
            self.problem("unknown_thread", ref_note.path, value=ref_note.value,
                         offered=_listing(self.offer, "thread"))
            return
        if _keyword_differs(ref_note.keyword, thread.keyword):
            # the reply means another thread than the id it wrote: never close one by a slip
            self.problem("other_thread", ref_note.path, value=thread.ref,
                         keyword=thread.keyword, said=ref_note.keyword)
            return
        if thread.memory_id not in self.out.payoffs:
            self.out.payoffs.append(thread.memory_id)


def _counts(out: Resolution) -> tuple[int, int, int, int]:
    return len(out.characters), len(out.relations), len(out.settings), len(out.story)


def _flag_new(out: Resolution, before: tuple[int, int, int, int], flag: str) -> None:
    """Flag what was placed since ``before`` (one note's items) with ``flag``, unless a
    reference problem already flagged it."""
    c, r, s, t = before
    out.characters[c:] = [x if x.flag else replace(x, flag=flag) for x in out.characters[c:]]
    out.relations[r:] = [x if x.flag else replace(x, flag=flag) for x in out.relations[r:]]
    out.settings[s:] = [x if x.flag else replace(x, flag=flag) for x in out.settings[s:]]
    out.story[t:] = [x if x.flag else replace(x, flag=flag) for x in out.story[t:]]


def resolve(reply: Reply, offer: Offer, *, salvage: bool = False,
            flags: Mapping[str, str] | None = None,
            asked: Iterable[tuple[str, str]] = ()) -> Resolution:
    """What ``reply`` means against ``offer`` (pure; see the module doc).

    Every problem is listed in :attr:`Resolution.problems`; the placed facts are the best
    reading of the reply. Without ``salvage`` a caller asks the model again when there are
    problems; with it (the repair turns are spent) the placed facts are stored as they are:
    an unresolved character's fact as an event flagged ``unplaced``, a fact that changes two
    slots flagged ``merged`` (it still makes untrue what it replaces), a reference that points
    nowhere dropped.

    ``flags``: what another check found in the reply, by path (a value in the wrong language:
    ``"language"``; ``"drop"``: junk to leave out): the notes at those paths are flagged or
    left out.

    ``asked``: the ``(key, path)`` of :data:`QUESTIONS` an earlier turn of this call asked: the
    reply's answer stands (a question, unlike a wrong reference, may be answered "as it is").
    """
    resolver = _Resolver(offer, salvage, flags or {}, frozenset(asked))
    out = resolver.out
    notes: list[CharacterNote | RelationNote | SettingNote | StoryNote] = [
        *reply.characters, *reply.relations, *reply.settings, *reply.story]
    for note in notes:
        flag = resolver.flag(note.path)
        if flag == "drop":
            continue
        before = _counts(out)
        resolver.place(note)
        if flag:
            _flag_new(out, before, flag)
    for paid in reply.payoffs:
        resolver.payoff(paid)
    for person in reply.people:
        found = resolver.person(person.path, person.value)
        if found is not None:
            resolver.out.people[person.path] = found[0]
    return resolver.out


__all__ = [
    "NEW",
    "QUESTIONS",
    "WORDS",
    "CastMember",
    "CharacterNote",
    "Offer",
    "OfferedFact",
    "OfferedRule",
    "OfferedThread",
    "PlacedCharacter",
    "PlacedRelation",
    "PlacedSetting",
    "PlacedStory",
    "Problem",
    "Reference",
    "RelationNote",
    "Reply",
    "Resolution",
    "SettingNote",
    "StoryNote",
    "build_offer",
    "name_parts",
    "parse_ref",
    "render_cast",
    "render_facts",
    "render_rules",
    "render_threads",
    "resolve",
    "restated_rule",
    "restates",
]
