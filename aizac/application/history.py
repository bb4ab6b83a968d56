"""The beat editor's undo/redo history: tree nodes <-> project changes.

Every generation, edit, regeneration and acceptance of a beat is a node of an
:class:`~aizac.application.tree.UndoTree` whose payload says which beat it touched and how. Moving
in the tree (undo, redo, switching to a sibling branch) is a walk from the current node up to the
common ancestor (undoing each node) and down to the target (redoing each node). This module holds
the walk and the per-kind effects over a small :class:`Effects` port, so the logic is testable
without a project.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from aizac.writer.schemas import CharacterProfile, NovelBeat

TREE_KEY = "web.undo_tree"
"""The project's key-value entry holding its undo tree (JSON)."""
DRAFT = "generate"
EDIT = "edit"
REGENERATE = "regenerate"
ACCEPT = "accept"
PLACE = "illustrate"
"""A picture placed in (or removed from) a slot: the cover, or an accepted beat."""
COVER_WHERE = "cover"
"""Where a cover's placement happened (a beat's is its position, ``1-2``)."""
IMPORT = "import"
"""An imported manuscript saved as the project's story: where its history starts (a node no
move may leave, as no move goes before a project's creation; see :func:`imported`)."""
KIND_KEYS = {
    DRAFT: "ui.k.generate",
    EDIT: "ui.k.edit",
    REGENERATE: "ui.k.regenerate",
    ACCEPT: "ui.k.accept",
    IMPORT: "ui.k.import",
}
"""What each kind of node did, as the history list says it."""
Cast = list[CharacterProfile]


class Effects(Protocol):
    """What moving through the history does to the project."""

    def restore_draft(self, beat_id: int, beat: NovelBeat, cast: Cast | None,
                      written: list[str] | None = None) -> None: ...
    def drop_draft(self, beat_id: int) -> None: ...
    def set_design(self, beat_id: int, beat: NovelBeat, cast: Cast | None,
                   written: list[str] | None = None) -> None: ...
    def unaccept(self, beat_id: int, commit_ids: Sequence[str]) -> None: ...
    def reaccept(self, beat_id: int, batch: str, summary: str | None) -> list[str]: ...
    def place_image(self, slot: str, image_id: str | None) -> None: ...


@dataclass(frozen=True)
class Step:
    """One node's change, decoded from its payload.

    ``cast`` and ``before_cast`` are the draft's new (not yet committed) characters after and
    before the change: restoring a design restores its own cast, so a branch left behind never
    brings its characters into memory. ``None`` in payloads written before casts were kept.
    """

    kind: str
    beat_id: int
    beat: NovelBeat | None
    before: NovelBeat | None
    cast: Cast | None = None
    before_cast: Cast | None = None
    summary: str | None = None  # an acceptance's beat summary, put back by redo
    batch: str = ""  # an acceptance's memory commit (journal batch id), put back by redo
    slot: str = ""  # a placement's slot, the picture it put there and the one it replaced
    image: str | None = None
    before_image: str | None = None
    written: list[str] | None = None  # the fields the writer wrote, after and before
    before_written: list[str] | None = None  # (None in payloads written before they were kept)

    @classmethod
    def from_payload(cls, kind: str, payload: dict[str, Any]) -> Step:
        beat = payload.get("beat")
        before = payload.get("before")
        return cls(
            kind=kind,
            beat_id=int(payload["beat_id"]),
            beat=NovelBeat.model_validate(beat) if beat else None,
            before=NovelBeat.model_validate(before) if before else None,
            cast=_cast(payload.get("cast")),
            before_cast=_cast(payload.get("before_cast")),
            summary=payload.get("summary"),
            batch=str(payload.get("batch") or ""),
            slot=str(payload.get("slot") or ""),
            image=payload.get("image"),
            before_image=payload.get("before_image"),
            written=_names(payload.get("written")),
            before_written=_names(payload.get("before_written")),
        )


def _names(value: Any) -> list[str] | None:
    return None if value is None else [str(v) for v in value]


def _cast(value: Any) -> Cast | None:
    if value is None:
        return None
    return [CharacterProfile.model_validate(p) for p in value]


def _dump_cast(cast: Cast | None) -> list[dict[str, Any]] | None:
    return None if cast is None else [p.model_dump(mode="json") for p in cast]


def payload(
    beat_id: int, beat: NovelBeat | None, before: NovelBeat | None = None, *,
    cast: Cast | None = None, before_cast: Cast | None = None, summary: str | None = None,
    batch: str = "", written: list[str] | None = None, before_written: list[str] | None = None,
) -> dict[str, Any]:
    """The JSON payload of a node."""
    return {
        "written": None if written is None else list(written),
        "before_written": None if before_written is None else list(before_written),
        "summary": summary,
        "batch": batch,
        "beat_id": beat_id,
        "beat": beat.model_dump(mode="json") if beat else None,
        "before": before.model_dump(mode="json") if before else None,
        "cast": _dump_cast(cast),
        "before_cast": _dump_cast(before_cast),
    }


def image_payload(slot: str, image: str | None, before: str | None, beat_id: int = 0
                  ) -> dict[str, Any]:
    """The payload of a placement node: undo puts ``before`` back, redo ``image`` (the same
    stored picture: nothing is generated again)."""
    return {**payload(beat_id, None), "slot": slot, "image": image, "before_image": before}


def import_payload(beat_ids: Sequence[int]) -> dict[str, Any]:
    """The payload of an import node: the accepted beats the manuscript became."""
    return {**payload(0, None), "beat_ids": list(beat_ids)}


def imported(nodes: Sequence[Any]) -> set[int]:
    """The beats imported by the import nodes among ``nodes`` (the tree's path)."""
    return {int(i) for n in nodes if n.kind == IMPORT for i in n.payload.get("beat_ids", ())}


def undo_step(step: Step, commit_ids: Sequence[str], effects: Effects) -> None:
    """Reverse one node's change."""
    if step.kind == PLACE:
        effects.place_image(step.slot, step.before_image)
    elif step.kind == DRAFT:
        effects.drop_draft(step.beat_id)
    elif step.kind in (EDIT, REGENERATE):
        if step.before is not None:
            effects.set_design(step.beat_id, step.before, step.before_cast, step.before_written)
    elif step.kind == ACCEPT:
        effects.unaccept(step.beat_id, commit_ids)


def redo_step(step: Step, effects: Effects) -> list[str] | None:
    """Apply one node's change again; returns the commit ids of an acceptance (the same ones
    when its undone commit is restored as it was)."""
    if step.kind == PLACE:
        effects.place_image(step.slot, step.image)
    elif step.kind == DRAFT and step.beat is not None:
        effects.restore_draft(step.beat_id, step.beat, step.cast, step.written)
    elif step.kind in (EDIT, REGENERATE) and step.beat is not None:
        effects.set_design(step.beat_id, step.beat, step.cast, step.written)
    elif step.kind == ACCEPT:
        return effects.reaccept(step.beat_id, step.batch, step.summary)
    return None


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the shared start of two root-to-node id paths."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
