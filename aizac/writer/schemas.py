"""Model-facing schemas of the writer pipeline.

Every model output is one of these Pydantic models, requested with its JSON schema and validated.
Strings carry ``max_length`` and lists ``max_length`` so schema-constrained decoding by a small
local model always terminates. ``extra="forbid"`` keeps the schemas closed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BeforeValidator,
    Field,
    StringConstraints,
    model_validator,
)

from aizac.llm.closed_schema import ClosedSchema, Name, Short
from aizac.llm.closed_schema import string_kind as _kind
from aizac.llm.grammar import VERBATIM
from aizac.memory.facts import Aspect

Stage = Literal["exposition", "development", "crisis", "climax", "resolution"]
STAGES: tuple[Stage, ...] = ("exposition", "development", "crisis", "climax", "resolution")


ThingName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40), _kind("place")
]
"""The name of a place, object or world rule (a setting)."""
Place = Annotated[str, StringConstraints(strip_whitespace=True, max_length=60), _kind("place")]
Time = Annotated[str, StringConstraints(strip_whitespace=True, max_length=60), _kind("time")]
Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=160)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=240)]


T = TypeVar("T")


def _unique(items: list[T], key: Callable[[T], object]) -> list[T]:
    seen: set[object] = set()
    out: list[T] = []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


# --------------------------------------------------------------------------------------- plot
class PlotCharacter(ClosedSchema):
    """A main character as the plan introduces them."""

    name: Name
    role: Short = Field(description="protagonist, antagonist, ally, love interest ...")
    profile: Text = Field(description="who they are, what they want")


class PlotSetting(ClosedSchema):
    """A place, object, era or world rule the story relies on."""

    name: ThingName
    description: Text


MAX_ACT_EPISODES = 500


def _clamp_episodes(value: Any) -> Any:
    # Grammar-constrained decoding does not enforce integer bounds: clamp instead of failing.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(max(round(value), 1), MAX_ACT_EPISODES)
    return value


class Act(ClosedSchema):
    """One of the five acts: its goal, how many episodes it spans and its key events."""

    stage: Stage
    goal: Text
    episodes: Annotated[int, BeforeValidator(_clamp_episodes)] = Field(
        ge=1, le=MAX_ACT_EPISODES, description="number of episodes the act spans"
    )
    key_events: list[Line] = Field(min_length=1, max_length=3, description="in story order")


class NovelPlot(ClosedSchema):
    """The whole plan. Only the planner ever sees all of it."""

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
    logline: Text
    genre: Short
    keywords: list[Short] = Field(default_factory=list, max_length=8)
    characters: list[PlotCharacter] = Field(min_length=1, max_length=5)
    settings: list[PlotSetting] = Field(default_factory=list, max_length=4)
    acts: list[Act] = Field(min_length=5, max_length=5)

    @model_validator(mode="after")
    def _acts_in_order(self) -> NovelPlot:
        # Small models get the stage labels wrong more often than the content; the position
        # of an act is what defines its stage.
        for act, stage in zip(self.acts, STAGES, strict=True):
            act.stage = stage
        # Repeated names (a small model's filler) would become duplicate canon: keep the first.
        self.characters = _unique(self.characters, lambda c: c.name.casefold())
        self.settings = _unique(self.settings, lambda s: s.name.casefold())
        self.keywords = _unique(self.keywords, str.casefold)
        return self

    def act_index(self, episode: int) -> int:
        """Index of the act that episode number ``episode`` (1-based) belongs to."""
        if episode < 1:
            raise ValueError("episodes are numbered from 1")
        end = 0
        for i, act in enumerate(self.acts):
            end += act.episodes
            if episode <= end:
                return i
        return len(self.acts) - 1

    def episode_plan(self, episode: int) -> str:
        """The key event of its act that episode ``episode`` works towards (the act's events
        are spread evenly over its episodes; past the planned total, the last event)."""
        i = self.act_index(episode)
        act = self.acts[i]
        start = 1 + sum(a.episodes for a in self.acts[:i])
        position = min(max(episode - start, 0), act.episodes - 1)
        return act.key_events[position * len(act.key_events) // act.episodes]

    @property
    def planned_episodes(self) -> int:
        return sum(act.episodes for act in self.acts)


# -------------------------------------------------------------------------------------- beats
class DialogueLine(ClosedSchema):
    speaker: Name
    line: Line


class BeatDesign(ClosedSchema):
    """What the planner designs for one beat (position is assigned by the pipeline)."""

    @model_validator(mode="after")
    def _unique_characters(self) -> BeatDesign:
        self.characters = _unique(self.characters, str.casefold)
        return self

    location: Place
    time: Time
    characters: list[Name] = Field(min_length=1, max_length=6)
    events: list[Line] = Field(min_length=1, max_length=4)
    dialogue: list[DialogueLine] = Field(default_factory=list, max_length=4)
    emotions: list[Short] = Field(default_factory=list, max_length=4)
    conflicts: list[Line] = Field(default_factory=list, max_length=3)
    sets_up: list[Line] = Field(default_factory=list, max_length=3)
    pays_off: list[Line] = Field(default_factory=list, max_length=3)


class NovelBeat(BeatDesign):
    """A beat placed in the story: episode number and index within the episode (both 1-based)."""

    episode: int = Field(ge=1, le=100_000)
    index: int = Field(ge=1, le=1_000)

    @classmethod
    def place(cls, design: BeatDesign, episode: int, index: int) -> NovelBeat:
        return cls(episode=episode, index=index, **design.model_dump())

    def design(self) -> BeatDesign:
        return BeatDesign(**self.model_dump(exclude={"episode", "index"}))

    def render(self, *, position: bool = True, labels: Mapping[str, str] | None = None) -> str:
        """Plain text of the beat for prompts and summaries (``position``: the episode-index
        tag, left out of prose prompts so small models do not echo it; ``labels``: the prompt
        language's line labels, :attr:`aizac.writer.prompt_words.PromptWords.labels`, English
        by default)."""
        said = labels or _english_labels()
        place = f"{self.location} / {self.time}"
        lines = [
            f"[{self.episode}-{self.index}] {place}" if position else place,
            said["characters"] + ", ".join(self.characters),
        ]
        lines += [f"- {e}" for e in self.events]
        lines += [f'{d.speaker}: "{d.line}"' for d in self.dialogue]
        if self.emotions:
            lines.append(said["emotions"] + ", ".join(self.emotions))
        if self.conflicts:
            lines.append(said["conflicts"] + "; ".join(self.conflicts))
        if self.sets_up:
            lines.append(said["sets_up"] + "; ".join(self.sets_up))
        if self.pays_off:
            lines.append(said["pays_off"] + "; ".join(self.pays_off))
        return "\n".join(lines)


# --------------------------------------------------------------------------------- extraction
# An extraction refers to what the store knows by the ids its prompt lists (cast c1, facts f1,
# rules r1, threads t1: aizac.memory.references); the store decides what a reference means.
KEYWORD_LENGTH = 30


def _clipped(value: Any) -> Any:
    """A keyword is the model's label for a fact, not the fact: one written longer than the
    schema says is cut, never the reason a whole extraction is refused (its facts were lost
    with it and the accept failed)."""
    return " ".join(value.split())[:KEYWORD_LENGTH].strip() if isinstance(value, str) else value


Keyword = Annotated[str, BeforeValidator(_clipped),
                    StringConstraints(strip_whitespace=True, max_length=KEYWORD_LENGTH)]
Ref = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40),
                _kind(VERBATIM)]
"""Who a fact is about: a cast id from the prompt (``c3``), or ``new``."""
Refs = Annotated[str, StringConstraints(strip_whitespace=True, max_length=12), _kind(VERBATIM)]
"""An id from the prompt's lists (``f4``, ``r2``, ``t1``)."""
NameForm = Annotated[str, StringConstraints(strip_whitespace=True, max_length=40), _kind("name")]


class StoryFact(ClosedSchema):
    text: Line
    keyword: Keyword = ""
    foreshadow: bool = False


class CharacterFact(ClosedSchema):
    # The prompt says what each field is (the schema is sent with every extraction): who is
    # a cast id or "new"; name the name form the beat uses (required with "new"); aspect the
    # slot it fills; feature the part of a look; replaces the ids of listed facts it makes
    # untrue.
    who: Ref
    name: NameForm = ""
    aspect: Aspect
    feature: Keyword = ""
    text: Line
    replaces: list[Refs] = Field(default_factory=list, max_length=3)


class RelationFact(ClosedSchema):
    # a and b: cast ids (or "new"); replaces: the listed relation it changes
    a: Ref
    b: Ref
    text: Line
    replaces: list[Refs] = Field(default_factory=list, max_length=2)


class SettingFact(ClosedSchema):
    # rule: a rule of the world; revises: the id of the listed rule it revises, or "new"
    # (left out of a rule: the repair turn asks)
    keyword: Keyword
    text: Line
    rule: bool = False
    revises: Refs | None = None


SpeechLevel = Literal["formal", "polite", "plain", ""]


class VoiceFact(ClosedSchema):
    """How a character speaks (their voice card; the prompt says what each field is: the
    schema stays small, it is sent with every combined extraction)."""

    who: Ref
    manner: Short = ""
    tics: list[Short] = Field(default_factory=list, max_length=2)
    catchphrases: list[Short] = Field(default_factory=list, max_length=2)
    dialect: Short = ""


class AddressFact(ClosedSchema):
    """How one character speaks to another (one direction): formal (hasipsio-che), polite
    (haeyo-che) or plain (banmal), and what the speaker calls the listener."""

    speaker: Ref
    listener: Ref
    speech_level: SpeechLevel = ""
    address: Short = ""


class PaidThread(ClosedSchema):
    # a listed thread the beat pays off: its id, and its keyword as the list shows it (what
    # the reply means, so a slip of the id is caught)
    thread: Refs
    keyword: Keyword = ""


class StoryExtraction(ClosedSchema):
    """What happened in the beat that later episodes must remember."""

    facts: list[StoryFact] = Field(default_factory=list, max_length=4)
    pays_off: list[PaidThread] = Field(default_factory=list, max_length=3)


class CharacterExtraction(ClosedSchema):
    """Changes of a character's state, psychology or status."""

    facts: list[CharacterFact] = Field(default_factory=list, max_length=4)


class RelationExtraction(ClosedSchema):
    """How two characters stand with each other after the beat."""

    facts: list[RelationFact] = Field(default_factory=list, max_length=4)


class SettingExtraction(ClosedSchema):
    """Objects, places, era, culture and world rules the beat establishes."""

    facts: list[SettingFact] = Field(default_factory=list, max_length=4)


EXTRACTION_SCHEMAS: dict[str, type[ClosedSchema]] = {
    "Story": StoryExtraction,
    "Character": CharacterExtraction,
    "CharacterRelation": RelationExtraction,
    "NovelSetting": SettingExtraction,
}


class BeatSummary(ClosedSchema):
    """A one or two sentence summary of an accepted beat for short-term memory."""

    summary: Text


# ---------------------------------------------------------------------------------- characters
class CharacterProfile(ClosedSchema):
    """A character introduced during writing (dynamic character).

    ``same_as``: the model says the name is another name of a listed character (its id, as the
    prompt lists the cast); aizac then keeps it as that character's alias, never as a new
    character (after the reply, the listed character's canonical name)."""

    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=3)
    role: Short
    profile: Text
    goal: Line
    same_as: NameForm = ""  # an id of the listed cast (c2) or one of its names

    def render(self, labels: Mapping[str, str] | None = None) -> str:
        """One line for a prompt (``labels``: the prompt language's, English by default)."""
        alias = f" ({', '.join(self.aliases)})" if self.aliases else ""
        goal = (labels or _english_labels())["goal"]
        return f"{self.name}{alias} — {self.role}. {self.profile}{goal}{self.goal}"


def _english_labels() -> Mapping[str, str]:
    from aizac.writer.prompt_words import prompt_words

    return prompt_words("en").labels
