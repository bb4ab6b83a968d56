"""Candidate memory from an accepted beat: the extractor refers to what memory knows, the store
decides what the references mean.

Every extraction prompt carries the memory's :class:`~aizac.memory.references.Offer` of the
scene, each item with the id the reply refers by (:func:`offer_block`). :func:`extract` asks the
extractor role for the four tags and the summary (concurrently by default); a capable model gets
one combined call instead (:mod:`aizac.writer.combined`). Each reply is checked inside the
structured call's repair loop by :class:`ReferenceCheck`: an id that was not offered, a name not
in the cast, a fact that replaces another character's fact or changes two slots at once is sent
back to the model quoting the ids it may use. What survives the repair turns is still kept
(:meth:`ReferenceCheck.resolution` with ``salvage``): valid items as they are, the rest flagged
for the writer, so a reply never ends a serial. :func:`stage` turns the result (an
:class:`Extracted`, plain operations with memory ids and canonical names) into one candidate batch
that the caller commits atomically.

The small embedded model cannot answer with references (it fills the fields by chance): its
facts are placed by meaning instead (:mod:`aizac.memory.slot_sense`), its ``replaces`` and
``pays_off`` are not trusted, and a thread it names stays open until the writer closes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.memory import Place, stage_voices
from aizac.errors import StructuredOutputError
from aizac.llm.runtime import run_sync as run_sync  # one model loop per process
from aizac.memory import facts
from aizac.memory.references import (
    QUESTIONS,
    CharacterNote,
    Offer,
    PlacedCharacter,
    PlacedRelation,
    PlacedSetting,
    PlacedStory,
    Problem,
    Reference,
    RelationNote,
    Reply,
    Resolution,
    SettingNote,
    StoryNote,
    render_cast,
    render_facts,
    render_rules,
    render_threads,
    resolve,
)
from aizac.writer.checked import accepts_keyword
from aizac.writer.ports import Batch, Memory, Router
from aizac.writer.prompt_words import PromptWords, prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import (
    BeatSummary,
    CharacterExtraction,
    CharacterProfile,
    NovelBeat,
    NovelPlot,
    RelationExtraction,
    SettingExtraction,
    StoryExtraction,
)

if TYPE_CHECKING:
    from aizac.memory.slot_sense import SlotSense

T = TypeVar("T")
PARTS: dict[str, tuple[str, ...]] = {
    "Story": ("threads",),
    "Character": ("cast", "facts"),
    "CharacterRelation": ("cast", "relations"),
    "NovelSetting": ("rules",),
    "all": ("cast", "facts", "relations", "rules", "threads"),
}
"""What of the offer each extraction prompt shows."""


@dataclass
class Extracted:
    """What one beat adds to memory, resolved against the memory it was offered (memory ids
    and canonical names), before it is staged.

    ``referred``: the model answered with references (every model but the small embedded
    one); otherwise the store places its facts by meaning (:func:`stage`)."""

    resolution: Resolution = field(default_factory=Resolution)
    summary: str = ""
    voices: list[VoiceCard] = field(default_factory=list)
    speech: list[PairVoice] = field(default_factory=list)
    referred: bool = True
    repairs: int = 0
    """Repair turns the extraction took (what the references cost)."""

    def dump(self) -> dict[str, Any]:
        """Plain data (the autopilot keeps candidates in its checkpointed state)."""
        r = self.resolution
        return {
            "characters": [asdict(c) for c in r.characters],
            "relations": [asdict(x) for x in r.relations],
            "settings": [asdict(s) for s in r.settings],
            "story": [asdict(s) for s in r.story],
            "payoffs": list(r.payoffs), "aliases": dict(r.aliases),
            "summary": self.summary, "voices": [asdict(v) for v in self.voices],
            "speech": [asdict(p) for p in self.speech], "referred": self.referred,
            "repairs": self.repairs,
        }

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Extracted:
        """The value :meth:`dump` wrote (or a run's state from before references: its facts
        by name, read as they were meant)."""
        if isinstance(data.get("story"), Mapping):
            return _legacy(data)
        resolution = Resolution(
            characters=[PlacedCharacter(**{**c, "outdates": tuple(c.get("outdates", ()))})
                        for c in data.get("characters", [])],
            relations=[PlacedRelation(**{**x, "outdates": tuple(x.get("outdates", ()))})
                       for x in data.get("relations", [])],
            settings=[PlacedSetting(**{**s, "ends": tuple(s.get("ends", ()))})
                      for s in data.get("settings", [])],
            story=[PlacedStory(**s) for s in data.get("story", [])],
            payoffs=[str(i) for i in data.get("payoffs", [])],
            aliases={str(k): str(v) for k, v in dict(data.get("aliases", {})).items()},
        )
        return cls(
            resolution, str(data.get("summary", "")),
            [VoiceCard(**{**v, "tics": tuple(v.get("tics", ())),
                          "catchphrases": tuple(v.get("catchphrases", ()))})
             for v in data.get("voices", [])],
            [PairVoice(**p) for p in data.get("speech", [])],
            bool(data.get("referred", True)), int(data.get("repairs", 0)),
        )


def _legacy(data: Mapping[str, Any]) -> Extracted:
    """An extraction an autopilot run checkpointed before references existed: every tag as
    ``{"facts": [...]}`` with names (no ids); a payoff by keyword is not taken (a thread closes
    only when a reply names it)."""
    def facts(tag: str) -> list[Mapping[str, Any]]:
        return list(dict(data.get(tag) or {}).get("facts", []))

    resolution = Resolution(
        characters=[PlacedCharacter(str(c["character_name"]), str(c.get("aspect") or "other"),
                                    str(c["text"]),
                                    feature=str(c.get("keyword", "")) if c.get("aspect")
                                    == "appearance" else "")
                    for c in facts("characters")],
        relations=[PlacedRelation(str(r["character1"]), str(r["character2"]), str(r["text"]))
                   for r in facts("relations")],
        settings=[PlacedSetting(str(s.get("keyword", "")), str(s["text"]), bool(s.get("rule")))
                  for s in facts("settings")],
        story=[PlacedStory(str(s["text"]), str(s.get("keyword", "")),
                           bool(s.get("foreshadow"))) for s in facts("story")],
    )
    voices = [VoiceCard(str(v["character_name"]), str(v.get("manner", "")),
                        tuple(v.get("tics", ())), tuple(v.get("catchphrases", ())),
                        str(v.get("dialect", ""))) for v in data.get("voices", [])]
    speech = [PairVoice(str(p["speaker"]), str(p["listener"]), str(p.get("speech_level", "")),
                        str(p.get("address", ""))) for p in data.get("speech", [])]
    return Extracted(resolution, str(data.get("summary", "")), voices, speech)


# ------------------------------------------------------------------------------ the prompt
def offer_block(offer: Offer, words: PromptWords, parts: Sequence[str] = PARTS["all"]) -> str:
    """The memory an extraction prompt shows, each list under its heading (pure)."""
    render: dict[str, Callable[[Offer], list[str]]] = {
        "cast": render_cast, "facts": lambda o: render_facts(o, relations=False),
        "relations": lambda o: render_facts(o, relations=True), "rules": render_rules,
        "threads": render_threads,
    }
    blocks = []
    for part in parts:
        lines = render[part](offer)
        blocks.append("\n".join([words.offer[part], *(lines or [words.offer["none"]])]))
    return "\n\n".join(blocks)


def prose_block(prose: str, words: PromptWords) -> str:
    """The ``$prose`` block of an extraction prompt: the scene's own text under its label, or
    nothing (a designed beat has no text of the writer's yet) (pure)."""
    if not prose.strip():
        return ""
    return "\n" + words.labels["prose"] + "\n" + prose.strip()


def problem_text(problems: Sequence[Problem], language: str, *, limit: int = 6) -> str:
    """What the model is told of its references, in the prompt's language (pure)."""
    table = prompt_words(language).reference
    said = [table[p.key].format(path=p.path, **dict(p.values)) for p in problems[:limit]]
    return table["lead"] + "; ".join(said) + "." + table["tail"]


# ------------------------------------------------------------------------------ the reply
def _refs(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in values if str(v).strip())


def notes_of(value: BaseModel, prefix: str = "") -> Reply:
    """A reply (a combined extraction, one tag's, or an episode item) as the store's notes
    (pure); ``prefix`` is the reply's path to ``value`` (``beat_2.``)."""
    data = {name: getattr(value, name) for name in type(value).model_fields}
    story = data.get("story") if "story" in data else (
        value if isinstance(value, StoryExtraction) else None)
    chars = data.get("characters") if "characters" in data else (
        value if isinstance(value, CharacterExtraction) else None)
    rels = data.get("relations") if "relations" in data else (
        value if isinstance(value, RelationExtraction) else None)
    sets = data.get("settings") if "settings" in data else (
        value if isinstance(value, SettingExtraction) else None)

    def at(part: str, obj: object) -> str:
        return prefix + (f"{part}." if obj is not value else "")

    people: list[Reference] = []
    for n, voice in enumerate(data.get("voices") or []):
        people.append(Reference(f"{prefix}voices[{n}].who", voice.who))
    for n, pair in enumerate(data.get("speech") or []):
        people.append(Reference(f"{prefix}speech[{n}].speaker", pair.speaker))
        people.append(Reference(f"{prefix}speech[{n}].listener", pair.listener))
    return Reply(
        characters=tuple(
            CharacterNote(f"{at('characters', chars)}facts[{n}]", c.who, c.text, c.aspect,
                          c.name, c.feature, _refs(c.replaces))
            for n, c in enumerate(chars.facts if chars is not None else [])),
        relations=tuple(
            RelationNote(f"{at('relations', rels)}facts[{n}]", r.a, r.b, r.text,
                         _refs(r.replaces))
            for n, r in enumerate(rels.facts if rels is not None else [])),
        settings=tuple(
            SettingNote(f"{at('settings', sets)}facts[{n}]", s.keyword, s.text, s.rule,
                        s.revises)
            for n, s in enumerate(sets.facts if sets is not None else [])),
        story=tuple(
            StoryNote(f"{at('story', story)}facts[{n}]", s.text, s.keyword, s.foreshadow)
            for n, s in enumerate(getattr(story, "facts", None) or [])),
        payoffs=tuple(Reference(f"{at('story', story)}pays_off[{n}]", paid.thread,
                                paid.keyword)
                      for n, paid in enumerate(story.pays_off if story is not None else [])),
        people=tuple(people),
    )


class ReferenceCheck:
    """The check of one extraction call's replies (the structured call's ``check`` contract:
    it raises ``ValueError`` with what the model must fix, in the prompt's language).

    It keeps the last reply it saw and the quality problems found in it, so that when the
    repair turns are spent :meth:`resolution` can still keep what is valid (``salvage``).

    Args:
        offer: what the prompt showed.
        language: the prompt's language (the repair text's).
        notes: the reply as the store's notes (default :func:`notes_of`).
    """

    def __init__(self, offer: Offer, language: str,
                 notes: Callable[[BaseModel], Reply] = notes_of) -> None:
        self.offer = offer
        self.language = language
        self.notes = notes
        self.value: BaseModel | None = None
        self.quality: list[Any] = []
        self.calls = 0
        self.asked: set[tuple[str, str]] = set()  # questions put to the model, answered once

    def __call__(self, value: BaseModel, quality: Sequence[Any] = ()) -> None:
        self.value, self.quality = value, list(quality)
        self.calls += 1
        asked = frozenset(self.asked)
        found = resolve(self.notes(value), self.offer, asked=asked)
        self.asked |= {(p.key, p.path) for p in found.problems if p.key in QUESTIONS}
        if found.problems:
            raise ValueError(problem_text(found.problems, self.language))

    @property
    def repairs(self) -> int:
        """Replies refused so far (each cost a repair turn)."""
        return max(0, self.calls - 1)

    def resolution(self, value: BaseModel | None = None, *, salvage: bool = False
                   ) -> Resolution:
        """What the (last) reply means; with ``salvage`` its problems are kept aside rather
        than refused, and values in the wrong language (the quality check's) are flagged."""
        chosen = value if value is not None else self.value
        if chosen is None:
            return Resolution()
        return self.resolution_of(self.notes(chosen), salvage=salvage)

    def resolution_of(self, notes: Reply, *, salvage: bool = False) -> Resolution:
        """What ``notes`` (part of the last reply: one beat's of an episode) mean, as
        :meth:`resolution` says."""
        flags = {}
        for problem in self.quality if salvage else ():
            path = str(getattr(problem, "path", ""))
            flags[path] = "language" if getattr(problem, "kind", "") == "script" else "drop"
        return resolve(notes, self.offer, salvage=salvage, flags=flags, asked=self.asked)


async def ask_checked(
    router: Router, role: str, schema: type[Any], messages: Any, check: ReferenceCheck,
) -> tuple[Any, Resolution]:
    """One extraction call with ``check`` in its repair loop: the reply and what it means.

    When the repair turns are spent (or the quality check refused its language), the last
    reply is kept with its problems set aside (:meth:`ReferenceCheck.resolution`); a reply
    that never parsed at all fails as before."""
    call: Any = router.astructured  # routers differ in what they take (accepts_keyword)
    try:
        if accepts_keyword(call, "also"):
            value = await call(role, schema, messages, also=check, each_value=True)
        elif accepts_keyword(call, "check"):
            value = await call(role, schema, messages, check=check)
        else:  # a plain router: checked once, afterwards
            value = await call(role, schema, messages)
            return value, check.resolution(value, salvage=True)
    except StructuredOutputError:
        if check.value is None:
            raise
        return None, check.resolution(salvage=True)
    return value, check.resolution(value)


# ------------------------------------------------------------------------------ the calls
async def extract(
    router: Router,
    beat: NovelBeat,
    *,
    offer: Offer,
    language: str,
    prompts: PromptLibrary,
    concurrent_calls: bool = True,
    referred: bool = True,
    prose: str = "",
) -> Extracted:
    """Ask the extractor role for the four tags and the summary (concurrently by default),
    each prompt showing its part of ``offer`` (and ``prose``, the scene's own text, if any)."""
    words = prompt_words(language)
    text = beat.render(labels=words.labels)
    names = ", ".join(m.name for m in offer.cast) or "-"
    checks: list[ReferenceCheck] = []
    scene = prose_block(prose, words)

    def ask(tag: str, schema: type[Any]) -> Coroutine[Any, Any, Any]:
        messages = prompts.render(f"extract_{tag}", language, beat=text, characters=names,
                                  offer=offer_block(offer, words, PARTS[tag]), prose=scene)
        check = ReferenceCheck(offer, language)
        checks.append(check)
        return ask_checked(router, "extractor", schema, messages, check)

    async def summarise() -> str:
        messages = prompts.render("summary", language, beat=text)
        try:
            return str((await router.astructured("extractor", BeatSummary, messages)).summary)
        except StructuredOutputError:  # a summary it cannot write never ends the serial
            return next((e for e in beat.events if e.strip()), beat.location)

    tags = [ask("Story", StoryExtraction), ask("Character", CharacterExtraction),
            ask("CharacterRelation", RelationExtraction), ask("NovelSetting", SettingExtraction)]
    if concurrent_calls:
        *parts, summary = await asyncio.gather(*tags, summarise())
    else:
        parts = [await c for c in tags]
        summary = await summarise()
    merged = Resolution()
    for _, part in parts:
        _merge(merged, part)
    return Extracted(merged, summary, referred=referred,
                     repairs=sum(c.repairs for c in checks))


def _merge(into: Resolution, part: Resolution) -> None:
    into.characters += part.characters
    into.relations += part.relations
    into.settings += part.settings
    into.story += part.story
    into.payoffs += [p for p in part.payoffs if p not in into.payoffs]
    into.people.update(part.people)
    for alias, name in part.aliases.items():
        into.aliases.setdefault(alias, name)
    into.problems += part.problems


def extracted_of(value: BaseModel | None, resolution: Resolution, summary: str, *,
                 prefix: str = "",
                 referred: bool = True, repairs: int = 0) -> Extracted:
    """The :class:`Extracted` of a reply that carries voices and speech as well (a combined
    extraction or an episode item): their references resolved to canonical names."""
    people = resolution.people
    voices = [VoiceCard(people[f"{prefix}voices[{n}].who"], str(v.manner or ""), tuple(v.tics),
                        tuple(v.catchphrases), str(v.dialect or ""))
              for n, v in enumerate(getattr(value, "voices", None) or [])
              if f"{prefix}voices[{n}].who" in people]
    speech = [PairVoice(people[f"{prefix}speech[{n}].speaker"],
                        people[f"{prefix}speech[{n}].listener"], str(p.speech_level or ""),
                        str(p.address or ""))
              for n, p in enumerate(getattr(value, "speech", None) or [])
              if f"{prefix}speech[{n}].speaker" in people
              and f"{prefix}speech[{n}].listener" in people]
    return Extracted(resolution, summary, voices, speech, referred, repairs)


# ------------------------------------------------------------------------------ staging
def name_key(name: str) -> str:
    """How names compare (the memory's one rule, :func:`aizac.memory.facts.name_key`)."""
    return facts.name_key(name)


def canonical_names(characters: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Every known name and alias (as :func:`name_key`) -> the character's canonical name."""
    out: dict[str, str] = {}
    for name, aliases in characters.items():
        out[name_key(name)] = name
        for alias in aliases:
            out.setdefault(name_key(alias), name)
    return out


def held_character(memory: Memory, name: str) -> bool:
    """Whether the story holds a character ``name`` though they may have faded from the live
    cast (:meth:`characters`): a current state of theirs, faded or not, or any note about
    them the writer did not forget. Read only for a name the live cast lacks."""
    if not name.strip():
        return False
    if memory.current_states(name):
        return True
    notes = memory.get_where({"character_name": " ".join(name.split())},
                             include_forgotten=True)
    return any(h.tag == "Character" and not h.metadata.get("forgotten") for h in notes)


def newcomers(profiles: Sequence[CharacterProfile]
              ) -> list[tuple[str, Sequence[str], str]]:
    """What the offer is told of a beat's new names: ``(name, aliases, same_as)``; a name the
    design said is a known character's (``same_as``) is that character's alias, not a new
    character."""
    return [(p.name, list(p.aliases), p.same_as) for p in profiles]


def _canonical_beat(beat: NovelBeat, canon: Mapping[str, str]) -> NovelBeat:
    """``beat`` with the names it uses for known characters (and the aliases this accept
    learns) written as their canonical names, so its lines are voiced by the right cast."""
    def name(raw: str) -> str:
        return canon.get(name_key(raw), raw)

    return beat.model_copy(update={
        "characters": list(dict.fromkeys(name(n) for n in beat.characters)),
        "dialogue": [d.model_copy(update={"speaker": name(d.speaker)}) for d in beat.dialogue],
    })


def stage(
    memory: Memory,
    extracted: Extracted,
    beat: NovelBeat,
    *,
    new_characters: Sequence[CharacterProfile] = (),
    language: str | None = None,
    held_voices: Collection[str] = (),
) -> tuple[Batch, list[str]]:
    """A candidate batch holding the beat's new characters and extracted facts (not committed),
    and the ids its new memories will have once committed.

    Every fact goes through the memory's one rule (``batch.note``): a restated fact reinforces
    the memory that holds it, a changed state / relation / rule supersedes the current one of
    its slot, and the facts a reply said it replaces (by reference) are superseded too. The
    aliases the reply confirmed are learned; a new character's profile is staged unless the
    character turns out to be known (an existing one is never re-profiled here). The threads
    the reply paid off (by reference) are closed. The voices the beat's lines show and those the
    extractor reported are staged like relations (``held_voices``: pair voices a check flagged,
    kept as they are). The caller commits (atomic) or discards the batch.
    """
    where: Place = {"chapter": beat.episode, "beat": beat.index}
    found = extracted.resolution
    known = dict(memory.characters())
    canon = canonical_names(known)
    for alias, name in found.aliases.items():
        canon.setdefault(name_key(alias), name)
    sense = None if extracted.referred else memory.slot_sense()
    batch = memory.stage()
    ids: list[str] = []

    def keep(new_id: str | None) -> None:
        if new_id is not None and str(new_id) not in ids:
            ids.append(str(new_id))

    # a character's memory reads in the story's language (its goal label too, not English)
    labels = prompt_words(language).labels if language else None
    try:
        for p in new_characters:
            if p.same_as and p.same_as in known and name_key(p.name) not in canon:
                batch.alias(p.same_as, p.name)  # the design said whose name it is
                canon[name_key(p.name)] = p.same_as
                continue
            if name_key(p.name) in canon:
                continue  # known after all (a name form this accept confirmed): not re-profiled
            if held_character(memory, p.name):
                continue  # held though faded from the live cast: only the writer re-profiles
            keep(batch.note(
                p.render(labels), "Character", character_name=p.name, aliases=list(p.aliases),
                keyword=p.role[:30], aspect=facts.PROFILE, **where,
            ))
            canon.setdefault(name_key(p.name), p.name)
        for alias, name in found.aliases.items():
            batch.alias(name, alias)
        for s in found.story:
            keep(batch.note(s.text, "Story", keyword=s.keyword, foreshadow=s.foreshadow,
                            flag=s.flag, **where))
        for c in found.characters:
            keep(_note_character(memory, batch, c, sense, where))
        for r in found.relations:
            if name_key(r.a) == name_key(r.b):
                continue
            keep(batch.note(r.text, "CharacterRelation", character1=r.a, character2=r.b,
                            outdates=r.outdates if sense is None else (), flag=r.flag,
                            **where))
        for st in found.settings:
            keep(_note_setting(memory, batch, st, sense, where))
        for voice_id in stage_voices(
            memory, batch, _canonical_beat(beat, canon), language=language, where=where,
            hold=held_voices, reported_pairs=extracted.speech, reported_cards=extracted.voices,
        ):
            keep(voice_id)
        if sense is None:  # a small model's payoff is a guess: the writer closes its threads
            for thread in found.payoffs:
                batch.pay_off(thread, chapter=where["chapter"], beat=where["beat"])
    except BaseException:
        batch.discard()
        raise
    return batch, ids


def _note_character(memory: Memory, batch: Batch, fact: PlacedCharacter,
                    sense: SlotSense | None,
                    where: Place) -> str | None:
    aspect = "" if fact.aspect == facts.OTHER else fact.aspect
    outdates: Sequence[str] = fact.outdates
    conflicts: list[str] = []
    if sense is not None and fact.aspect != facts.APPEARANCE:
        # the small model's aspect and replaces are chance: the meaning places the fact
        aspect, doubt = sense.place(fact.text)
        outdates = ()
        if doubt:
            conflicts = [h.id for h in memory.current_states(fact.name)
                         if h.metadata.get("aspect") in doubt]
    keyword = fact.feature if aspect == facts.APPEARANCE else ""
    return batch.note(fact.text, "Character", character_name=fact.name, aspect=aspect or None,
                      keyword=keyword, outdates=outdates, conflicts=conflicts or None,
                      flag=fact.flag, **where)


def _note_setting(memory: Memory, batch: Batch, fact: PlacedSetting, sense: SlotSense | None,
                  where: Place) -> str | None:
    if not fact.rule:
        return batch.note(fact.text, "NovelSetting", keyword=fact.keyword, flag=fact.flag,
                          **where)
    conflicts: list[str] = []
    lineage, revises = fact.lineage, fact.revises
    ends: Sequence[str] = fact.ends
    if sense is not None:  # which rule a small model revises is chance: flag a near one
        lineage, revises, ends = "", "", ()
        rules = memory.world_rules()
        conflicts = [rules[i].id for i in sense.near(fact.text, [h.text for h in rules])]
    return batch.note(fact.text, "NovelSetting", keyword=fact.keyword, aspect=facts.RULE,
                      lineage=lineage,
                      outdates=[revises, *ends] if revises else ends,
                      conflicts=conflicts or None, flag=fact.flag, **where)


def seed_plot(memory: Memory, plot: NovelPlot, *, old_ids: list[str]) -> list[str]:
    """Commit the plot's main characters (each as who they are: their profile) and settings as
    the first memories (one batch) and forget the ones an earlier version of the plot seeded
    (``old_ids``); returns the new ids."""
    from aizac.errors import AizacError

    batch = memory.stage()
    try:
        for c in plot.characters:
            batch.remember(
                f"{c.name} — {c.role}. {c.profile}", "Character",
                character_name=c.name, keyword=c.role[:30], chapter=0, aspect=facts.PROFILE,
            )
        for s in plot.settings:
            batch.remember(
                f"{s.name}: {s.description}", "NovelSetting", keyword=s.name[:30], chapter=0
            )
    except BaseException:
        batch.discard()
        raise
    ids = list(batch.commit())
    for old in old_ids:
        try:
            memory.forget(old)
        except (AizacError, KeyError):
            continue
    return ids


__all__ = [
    "PARTS",
    "Extracted",
    "ReferenceCheck",
    "ask_checked",
    "canonical_names",
    "extract",
    "extracted_of",
    "held_character",
    "newcomers",
    "notes_of",
    "offer_block",
    "problem_text",
    "seed_plot",
    "stage",
]
