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

from aizac.continuity.coverage import short_name
from aizac.llm.structured import generate_structured
from aizac.memory.facts import Aspect, name_key

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory

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


_SYSTEM = {
    "ko": (
        "당신은 연재 소설 자동 집필의 조정자입니다. 작가의 개입을 제어 동작으로 바꾸세요: "
        "queue_rewrite(이미 쓴 회차 first..last 다시 쓰기), revise_outline(앞으로의 개요 수정), "
        "change_character(인물의 상태 변경: aspect는 condition, whereabouts, allegiance, status, "
        "ability, emotion, goal, other 중 하나), change_setting(설정 변경), pause(변경 후 멈춤). "
        "문장은 한국어로 쓰고 JSON 하나로만 답하세요."
    ),
    "en": (
        "You are the arbiter of an autopilot writing a serial novel. Turn the writer's "
        "intervention into control actions: queue_rewrite (rewrite written episodes "
        "first..last), revise_outline (revise the outline ahead), change_character (a "
        "character's state; aspect is one of condition, whereabouts, allegiance, status, "
        "ability, emotion, goal, other), change_setting, pause (pause after the change). "
        "Answer with one JSON object only."
    ),
    "zh": (
        "你是自动连载写作的调度者。把作者的干预变成控制动作："
        "queue_rewrite（重写已写的第 first..last 回）、revise_outline（修改后续大纲）、"
        "change_character（人物状态；aspect 为 condition, "
        "whereabouts, allegiance, status, ability, emotion, goal, other 之一）、change_setting、"
        "pause（修改后暂停）。用中文书写，只回答一个 JSON 对象。"
    ),
}


def _lang(language: str) -> str:
    return language if language in _SYSTEM else "en"


def steering_messages(
    text: str, *, language: str, written: int, characters: Cast = ()
) -> list[BaseMessage]:
    """The arbiter's conversation for one intervention (pure)."""
    if isinstance(characters, Mapping):
        cast = ", ".join(f"{c} ({', '.join(a)})" if a else c for c, a in characters.items())
    else:
        cast = ", ".join(characters)
    cast = cast or "-"
    user = (
        f"written episodes: 1..{written}\ncharacters: {cast}\n\nintervention:\n{text.strip()}"
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


def check_plan(plan: SteeringPlan, *, written: int, characters: Cast = ()) -> None:
    """Raise ``ValueError`` (shown to the model) when an action does not fit the run (pure)."""
    known = _known(characters)
    for action in plan.actions:
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
    retries: int = 2,
) -> list[QueueRewrite | ReviseOutline | ChangeCharacter | ChangeSetting | Pause]:
    """The control actions the arbiter ``model`` makes of the writer's ``text``.

    Raises:
        StructuredOutputError: no valid plan after ``retries`` repairs (nothing is applied).
    """
    plan = generate_structured(
        model,
        SteeringPlan,
        steering_messages(text, language=language, written=written, characters=characters),
        retries=retries,
        check=lambda p: check_plan(p, written=written, characters=characters),
    )
    return list(plan.actions)


def apply_canon_changes(
    memory: WriterMemory,
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
    :func:`~aizac.autopilot.events.canon_change_source`) is stored in each new memory's
    ``canon_change`` metadata, in the same write: a canon change always names what made it.
    """
    from aizac.autopilot.events import CANON_CHANGE_KEY

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
                new = batch.note(action.text, "NovelSetting", keyword=action.keyword,
                                 aspect="rule" if action.rule else None, chapter=chapter,
                                 beat=beat, extra=extra)
            if new is not None and new not in ids:
                ids.append(new)
    return ids


_DESCRIBE = {
    "ko": {
        "queue_rewrite": "{first}–{last}화 다시 쓰기: {note}",
        "revise_outline": "앞으로의 개요 수정: {note}",
        "change_character": "인물 변경 — {name} ({aspect}): {text}",
        "change_setting": "설정 변경 — {keyword}: {text}",
        "pause": "변경 후 일시 정지",
    },
    "en": {
        "queue_rewrite": "rewrite episodes {first}–{last}: {note}",
        "revise_outline": "revise the outline ahead: {note}",
        "change_character": "change character — {name} ({aspect}): {text}",
        "change_setting": "change setting — {keyword}: {text}",
        "pause": "pause after the change",
    },
    "zh": {
        "queue_rewrite": "重写第 {first}–{last} 回：{note}",
        "revise_outline": "修改后续大纲：{note}",
        "change_character": "人物变更 — {name}（{aspect}）：{text}",
        "change_setting": "设定变更 — {keyword}：{text}",
        "pause": "变更后暂停",
    },
}


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
