"""The writer's constraints on a regenerated beat: locked fields and an instruction (pure).

Fields the writer edited by hand are theirs: a regeneration keeps them word for word (the model
is told so, and whatever it answers for them is replaced by the writer's values), and the
writer's instruction goes into the prompt in the project's language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from aizac.errors import InvalidInputError
from aizac.writer.prompt_words import PromptWords
from aizac.writer.schemas import NovelBeat

LOCKABLE: tuple[str, ...] = (
    "location", "time", "characters", "events", "dialogue", "emotions", "conflicts",
    "sets_up", "pays_off",
)

def locked_values(beat: NovelBeat, fields: Iterable[str]) -> dict[str, Any]:
    """The values of ``fields`` in ``beat`` (JSON-ready), in :data:`LOCKABLE` order."""
    chosen = set(fields)
    unknown = chosen - set(LOCKABLE)
    if unknown:
        raise InvalidInputError("error.beat.lock", fields=", ".join(sorted(unknown)),
                                lockable=", ".join(LOCKABLE))
    data = beat.model_dump(mode="json")
    return {f: data[f] for f in LOCKABLE if f in chosen}


def apply_locks(beat: NovelBeat, locked: Mapping[str, Any]) -> NovelBeat:
    """``beat`` with the locked fields put back to the writer's values (validated)."""
    if not locked:
        return beat
    return NovelBeat.model_validate({**beat.model_dump(mode="json"), **locked})


def _shown(value: Any) -> str:
    if isinstance(value, list):
        parts = [
            f"{v['speaker']}: {v['line']}" if isinstance(v, dict) else str(v) for v in value
        ]
        return " / ".join(parts) or "-"
    return str(value) or "-"


def render_request(instruction: str, locked: Mapping[str, Any], words: PromptWords) -> str:
    """The ``$instruction`` block of the beat prompt, in the prompt's language (``words``);
    "" when there is nothing to ask."""
    lines = []
    if instruction.strip():
        lines.append(words.labels["request"].replace("{text}", instruction.strip()))
    if locked:
        lines.append(words.labels["locked"])
        lines += [f"- {name}: {_shown(value)}" for name, value in locked.items()]
    return "\n" + "\n".join(lines) + "\n" if lines else ""
