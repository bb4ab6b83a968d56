"""The beat editor's undo/redo history: tree nodes <-> project changes.

Every generation, edit, regeneration and acceptance of a beat is a node of an
:class:`~aizac.web.tree.UndoTree` whose payload says which beat it touched and how. Moving in the
tree (undo, redo, switching to a sibling branch) is a walk from the current node up to the common
ancestor (undoing each node) and down to the target (redoing each node). This module holds the
walk and the per-kind effects over a small :class:`Effects` port, so the logic is testable
without a project.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from aizac.writer.schemas import NovelBeat

DRAFT = "generate"
EDIT = "edit"
REGENERATE = "regenerate"
ACCEPT = "accept"
KIND_LABELS = {
    DRAFT: "designed",
    EDIT: "edited",
    REGENERATE: "regenerated",
    ACCEPT: "accepted",
}


class Effects(Protocol):
    """What moving through the history does to the project."""

    def restore_draft(self, beat_id: int, beat: NovelBeat) -> None: ...
    def drop_draft(self, beat_id: int) -> None: ...
    def set_design(self, beat_id: int, beat: NovelBeat) -> None: ...
    def unaccept(self, beat_id: int, commit_ids: Sequence[str]) -> None: ...
    def reaccept(self, beat_id: int) -> list[str]: ...


@dataclass(frozen=True)
class Step:
    """One node's change, decoded from its payload."""

    kind: str
    beat_id: int
    beat: NovelBeat | None
    before: NovelBeat | None

    @classmethod
    def from_payload(cls, kind: str, payload: dict[str, Any]) -> Step:
        beat = payload.get("beat")
        before = payload.get("before")
        return cls(
            kind=kind,
            beat_id=int(payload["beat_id"]),
            beat=NovelBeat.model_validate(beat) if beat else None,
            before=NovelBeat.model_validate(before) if before else None,
        )


def payload(
    beat_id: int, beat: NovelBeat | None, before: NovelBeat | None = None
) -> dict[str, Any]:
    """The JSON payload of a node."""
    return {
        "beat_id": beat_id,
        "beat": beat.model_dump(mode="json") if beat else None,
        "before": before.model_dump(mode="json") if before else None,
    }


def undo_step(step: Step, commit_ids: Sequence[str], effects: Effects) -> None:
    """Reverse one node's change."""
    if step.kind == DRAFT:
        effects.drop_draft(step.beat_id)
    elif step.kind in (EDIT, REGENERATE):
        if step.before is not None:
            effects.set_design(step.beat_id, step.before)
    elif step.kind == ACCEPT:
        effects.unaccept(step.beat_id, commit_ids)


def redo_step(step: Step, effects: Effects) -> list[str] | None:
    """Apply one node's change again; returns new commit ids for an acceptance."""
    if step.kind == DRAFT and step.beat is not None:
        effects.restore_draft(step.beat_id, step.beat)
    elif step.kind in (EDIT, REGENERATE) and step.beat is not None:
        effects.set_design(step.beat_id, step.beat)
    elif step.kind == ACCEPT:
        return effects.reaccept(step.beat_id)
    return None


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the shared start of two root-to-node id paths."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
