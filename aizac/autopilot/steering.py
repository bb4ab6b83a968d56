"""Steering a running book: a writer's free-text intervention becomes validated control actions.

:func:`interpret` asks the arbiter (the ``planner`` role) to turn "the heroine survives the
fire" or "slow down the romance" into a :class:`SteeringPlan` of closed actions:

* :class:`QueueRewrite` — rewrite episodes ``first``..``last`` (already written ones only);
* :class:`ReviseOutline` — revise the outline ahead with ``note``;
* :class:`ChangeCharacter` / :class:`ChangeSetting` — a new canon fact, applied only through the
  memory's validated path (:meth:`~aizac.memory.staging.CandidateBatch.note`, which supersedes
  the fact it replaces) by :func:`apply_canon_changes`;
* :class:`Pause` — pause the run after the change.

The plan is checked against the run (episode range, known characters) and a bad one is shown
to the model with the error and asked again. :func:`describe` renders actions for the writer
and the decisions log (pure). What runs when is the workflow's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.autopilot.prompt_data import prompt_data
from aizac.continuity.coverage import short_name
from aizac.llm.structured import generate_structured
from aizac.memory.facts import Aspect, fact_slot, name_key

if TYPE_CHECKING:
    from aizac.writer.ports import ProjectMemory

Note = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=240)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Keyword = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=30)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QueueRewrite(_Action):
    kind: Literal["queue_rewrite"] = "queue_rewrite"
    first: int = Field(ge=1, le=100_000)
    last: int = Field(ge=1, le=100_000)
    note: Note


class ReviseOutline(_Action):
    kind: Literal["revise_outline"] = "revise_outline"
    note: Note


class ChangeCharacter(_Action):
    kind: Literal["change_character"] = "change_character"
    name: Name
    aspect: Aspect
    text: Note


class ChangeSetting(_Action):
    kind: Literal["change_setting"] = "change_setting"
    keyword: Keyword
    text: Note
    rule: bool = False
    revises: str = Field(default="", max_length=40,
                         description="a rule: the id of the listed rule it changes")


class Pause(_Action):
    kind: Literal["pause"] = "pause"


Action = Annotated[
    QueueRewrite | ReviseOutline | ChangeCharacter | ChangeSetting | Pause,
    Field(discriminator="kind"),
]


class SteeringPlan(BaseModel):
    """What the arbiter makes of one intervention (model-facing: closed schema)."""

    model_config = ConfigDict(extra="forbid")

    actions: list[Action] = Field(min_length=1, max_length=6)


_PROMPTS = prompt_data("steering")
_SYSTEM = {lang: str(texts["system"]) for lang, texts in _PROMPTS.items()}


def _lang(language: str) -> str:
    return language if language in _SYSTEM else "en"


Rules = Sequence[tuple[str, str, str]]
"""The rules in force: ``(memory id, keyword, text)``; the arbiter sees them as ``r1`` ..."""


def steering_messages(
    text: str, *, language: str, written: int, characters: Cast = (), rules: Rules = ()
) -> list[BaseMessage]:
    """The arbiter's conversation for one intervention (pure)."""
    if isinstance(characters, Mapping):
        cast = ", ".join(f"{c} ({', '.join(a)})" if a else c for c, a in characters.items())
    else:
        cast = ", ".join(characters)
    cast = cast or "-"
    listed = "".join(f"\n  r{n} [{keyword}] {said}" for n, (_, keyword, said)
                     in enumerate(rules, 1))
    user = (
        f"written episodes: 1..{written}\ncharacters: {cast}\nrules (a change of one names "
        f"its id in revises):{listed or ' -'}\n\nintervention:\n{text.strip()}"
    )
    return [SystemMessage(_SYSTEM[_lang(language)]), HumanMessage(user)]


Cast = Sequence[str] | Mapping[str, Sequence[str]]
"""Known characters: names, or canonical name -> aliases (``WriterMemory.characters()``)."""


def _known(characters: Cast) -> set[str]:
    """Name keys a character may be called by: names, aliases, a Korean given name alone."""
    names = list(characters)
    if isinstance(characters, Mapping):
        names += [a for aliases in characters.values() for a in aliases]
    return {name_key(n) for n in names} | {name_key(short_name(n)) for n in names}


def check_plan(plan: SteeringPlan, *, written: int, characters: Cast = (),
               rules: Rules = ()) -> None:
    """Raise ``ValueError`` (shown to the model) when an action does not fit the run (pure)."""
    known = _known(characters)
    listed = [f"r{n}" for n in range(1, len(rules) + 1)]
    for action in plan.actions:
        if isinstance(action, ChangeSetting) and action.revises and (
                action.revises.strip().casefold() not in listed):
            raise ValueError(f"change_setting: revises {action.revises!r} is not a listed "
                             f"rule id (listed: {', '.join(listed) or '-'}).")
        if isinstance(action, QueueRewrite):
            if action.first > action.last:
                raise ValueError(f"queue_rewrite: first ({action.first}) is after last "
                                 f"({action.last}).")
            if action.last > written:
                raise ValueError(f"queue_rewrite: only episodes 1..{written} are written; "
                                 f"{action.last} is not.")
        if isinstance(action, ChangeCharacter) and known and name_key(action.name) not in known:
            raise ValueError(f"change_character: {action.name!r} is not a known character "
                             f"(known: {', '.join(list(characters)[:20])}).")


def interpret(
    model: BaseChatModel,
    text: str,
    *,
    language: str,
    written: int,
    characters: Cast = (),
    rules: Rules = (),
    retries: int = 2,
) -> list[QueueRewrite | ReviseOutline | ChangeCharacter | ChangeSetting | Pause]:
    """The control actions the arbiter ``model`` makes of the writer's ``text``; a rule it
    revises is named by the id it was shown and comes back as that rule's memory id.

    Raises:
        StructuredOutputError: no valid plan after ``retries`` repairs (nothing is applied).
    """
    plan = generate_structured(
        model,
        SteeringPlan,
        steering_messages(text, language=language, written=written, characters=characters,
                          rules=rules),
        retries=retries,
        check=lambda p: check_plan(p, written=written, characters=characters, rules=rules),
    )
    ids = {f"r{n}": mid for n, (mid, _, _) in enumerate(rules, 1)}
    return [a.model_copy(update={"revises": ids[a.revises.strip().casefold()]})
            if isinstance(a, ChangeSetting) and a.revises else a for a in plan.actions]


def apply_canon_changes(
    memory: ProjectMemory,
    actions: Sequence[object],
    *,
    chapter: int,
    beat: int = 0,
    source: str = "",
) -> list[str]:
    """Commit the character and setting changes among ``actions`` as one memory batch.

    Each goes through :meth:`CandidateBatch.note` (validated; a changing fact supersedes the
    current one). Returns the ids of new memories (a restated fact adds none). All or nothing.
    ``source`` (the steering note's provenance, see
    :func:`~aizac.storage.steering.canon_change_source`) is stored in each new memory's
    ``canon_change`` metadata, in the same write: a canon change always names what made it.
    """
    from aizac.storage.steering import CANON_CHANGE_KEY

    extra = {CANON_CHANGE_KEY: source} if source else None
    batch = memory.stage()
    ids: list[str] = []
    with batch:
        for action in actions:
            new: str | None = None
            if isinstance(action, ChangeCharacter):
                name = memory.resolve_name(action.name)
                new = batch.note(action.text, "Character", character_name=name,
                                 aspect=action.aspect, chapter=chapter, beat=beat, extra=extra)
            elif isinstance(action, ChangeSetting):
                # a revision continues the rule it names (its slot), never one by keyword
                revised = memory.get(action.revises) if action.revises else None
                lineage = (fact_slot(revised.metadata).removeprefix("rule|")
                           if revised is not None else "")
                new = batch.note(action.text, "NovelSetting", keyword=action.keyword,
                                 aspect="rule" if action.rule or revised else None,
                                 lineage=lineage,
                                 outdates=[revised.id] if revised is not None else (),
                                 chapter=chapter, beat=beat, extra=extra)
            if new is not None and new not in ids:
                ids.append(new)
    return ids


_DESCRIBE = {lang: {k: str(v) for k, v in texts.items() if k != "system"}
             for lang, texts in _PROMPTS.items()}


def describe(actions: Sequence[BaseModel], language: str = "en") -> list[str]:
    """One line per action for the writer and the decisions log (pure)."""
    table = _DESCRIBE.get(language, _DESCRIBE["en"])
    return [table[str(a.model_dump()["kind"])].format(**a.model_dump()) for a in actions]


__all__ = [
    "Action",
    "ChangeCharacter",
    "ChangeSetting",
    "Pause",
    "QueueRewrite",
    "ReviseOutline",
    "SteeringPlan",
    "apply_canon_changes",
    "check_plan",
    "describe",
    "interpret",
    "steering_messages",
]
