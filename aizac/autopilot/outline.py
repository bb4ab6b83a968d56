"""Rolling outline: the plot's acts expanded into arcs and episode goals, one arc at a time.

The plan's five acts are a first guess. At the end of an arc, :func:`outline_next_arc` outlines
the next one from what actually happened — the memory's recent summaries and story events, the
open foreshadowing — together with the act goal and key events those episodes fall under, so the
outline follows the story that was written rather than the plan it started from.
:func:`outline_messages` is the pure prompt assembly; :class:`OutlineStore` keeps the arcs in one
JSON file in an embedded project's folder, written atomically (a temporary file, then rename), or
in the project's key-value slot on the server database, where every process sees them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from aizac.autopilot.prompt_data import prompt_data
from aizac.errors import InvalidInputError, StorageError
from aizac.export.files import atomic_write_bytes
from aizac.llm.structured import generate_structured

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory
    from aizac.writer.schemas import NovelPlot

Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
MAX_ARC_EPISODES = 10


class EpisodeGoal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episode: int = Field(ge=1, le=100_000)
    goal: Line


class ArcOutline(BaseModel):
    """One arc: its goal and one goal per episode (model-facing: closed schema)."""

    model_config = ConfigDict(extra="forbid")

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
    goal: Line
    episodes: list[EpisodeGoal] = Field(min_length=1, max_length=MAX_ARC_EPISODES)


_SYSTEM = {lang: str(texts["system"]) for lang, texts in prompt_data("outline").items()}


def _lang(language: str) -> str:
    return language if language in _SYSTEM else "en"


def _check_episodes(episodes: Sequence[int]) -> list[int]:
    numbers = list(episodes)
    if not numbers or len(numbers) > MAX_ARC_EPISODES or any(n < 1 for n in numbers):
        raise InvalidInputError("error.autopilot.arc", most=MAX_ARC_EPISODES, got=repr(numbers))
    return numbers


def plan_lines(plot: NovelPlot, episodes: Sequence[int]) -> list[str]:
    """The act goals and key events the episodes fall under in the original plan (pure)."""
    lines: list[str] = []
    for n in episodes:
        act = plot.acts[plot.act_index(n)]
        lines.append(f"{n}: [{act.stage}] {act.goal} — {plot.episode_plan(n)}")
    return lines


def outline_messages(
    *,
    plan: Sequence[str],
    happened: Sequence[str],
    threads: Sequence[str],
    episodes: Sequence[int],
    language: str,
) -> list[BaseMessage]:
    """The outline conversation (pure)."""
    def block(items: Sequence[str]) -> str:
        return "\n".join(f"- {i}" for i in items) or "- -"

    numbers = ", ".join(str(n) for n in episodes)
    user = (
        f"## what happened\n{block(happened)}\n\n## open foreshadowing\n{block(threads)}\n\n"
        f"## original plan for these episodes\n{block(plan)}\n\n"
        f"Outline episodes {numbers} (exactly {len(episodes)} goals, in this order)."
    )
    return [SystemMessage(_SYSTEM[_lang(language)]), HumanMessage(user)]


def check_arc(arc: ArcOutline, episodes: Sequence[int]) -> None:
    """Raise ``ValueError`` (shown to the model) unless there is one goal per episode."""
    if len(arc.episodes) != len(episodes):
        raise ValueError(
            f"Give exactly {len(episodes)} episode goals (episodes "
            f"{', '.join(str(n) for n in episodes)}), not {len(arc.episodes)}."
        )


def what_happened(memory: WriterMemory, limit: int = 12) -> tuple[list[str], list[str]]:
    """Recent summaries and story events, and open foreshadowing, from ``memory`` (adapter)."""
    happened = list(memory.short_term.items())
    story = memory.get_where({"tag": "Story"}, limit=limit)
    happened += [h.text for h in reversed(story) if h.text not in happened]
    threads = [h.text for h in memory.open_foreshadowing()[:limit]]
    return happened[-limit:], threads


def outline_next_arc(
    model: BaseChatModel,
    memory: WriterMemory,
    plot: NovelPlot,
    *,
    episodes: Sequence[int],
    language: str,
    retries: int = 2,
) -> ArcOutline:
    """Outline the arc spanning ``episodes`` from what happened so far.

    The returned goals carry the requested episode numbers in order (a model's numbering is
    not trusted; position defines the episode, as for the plan's acts).

    Raises:
        InvalidInputError: ``episodes`` is empty, too long or not numbered from 1.
        StructuredOutputError: no valid outline after ``retries`` repairs.
    """
    numbers = _check_episodes(episodes)
    happened, threads = what_happened(memory)
    messages = outline_messages(
        plan=plan_lines(plot, numbers), happened=happened, threads=threads,
        episodes=numbers, language=language,
    )
    arc = generate_structured(
        model, ArcOutline, messages, retries=retries, check=lambda a: check_arc(a, numbers)
    )
    goals = [EpisodeGoal(episode=n, goal=g.goal) for n, g in zip(numbers, arc.episodes,
                                                                   strict=True)]
    return arc.model_copy(update={"episodes": goals})


OUTLINE_KEY = "autopilot:outline"
"""The key-value slot of the outline on the server database."""


class OutlineStore:
    """The arcs outlined so far: ``<folder>/outline.json`` (atomic writes), or the project's
    key-value slot :data:`OUTLINE_KEY` when ``where`` is a store on the server database."""

    def __init__(self, where: Any) -> None:
        self.store = where if getattr(where, "server", False) else None
        folder = where.directory if hasattr(where, "directory") else where
        self.path = Path(folder) / "outline.json"

    def _raw(self) -> str | None:
        if self.store is not None:
            kept = self.store.kv_get(OUTLINE_KEY)
            return kept[0] if kept else None
        if not self.path.exists():
            return None
        try:
            return self.path.read_text(encoding="utf-8")
        except OSError as e:
            raise StorageError("error.autopilot.outline_file", path=str(self.path),
                               cause=str(e)) from e

    def arcs(self) -> list[ArcOutline]:
        raw = self._raw()
        if raw is None:
            return []
        try:
            return [ArcOutline.model_validate(a) for a in json.loads(raw)["arcs"]]
        except (ValueError, KeyError, TypeError, ValidationError) as e:
            raise StorageError("error.autopilot.outline_file", path=str(self.path),
                               cause=str(e)) from e

    def add(self, arc: ArcOutline) -> None:
        """Append ``arc``; goals it gives for already outlined episodes replace the old ones."""
        new = {g.episode for g in arc.episodes}
        kept = []
        for old in self.arcs():
            goals = [g for g in old.episodes if g.episode not in new]
            if goals:
                kept.append(old.model_copy(update={"episodes": goals}))
        data = {"arcs": [a.model_dump() for a in [*kept, arc]]}
        text = json.dumps(data, ensure_ascii=False, indent=1)
        if self.store is not None:
            self.store.kv_set(OUTLINE_KEY, text)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, text.encode("utf-8"))

    def goal_for(self, episode: int) -> str | None:
        """The outlined goal of ``episode``, or ``None`` when it is not outlined yet."""
        for arc in reversed(self.arcs()):
            for goal in arc.episodes:
                if goal.episode == episode:
                    return goal.goal
        return None

    def last_outlined(self) -> int:
        """The highest outlined episode number (0 when none)."""
        return max((g.episode for a in self.arcs() for g in a.episodes), default=0)


__all__ = [
    "MAX_ARC_EPISODES",
    "ArcOutline",
    "EpisodeGoal",
    "OutlineStore",
    "check_arc",
    "outline_messages",
    "outline_next_arc",
    "plan_lines",
    "what_happened",
]
