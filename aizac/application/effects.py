"""Moving through the beat editor's history: the project-side effects of undo, redo and switch.

:func:`move` walks an :class:`~aizac.application.tree.UndoTree` transition, applying each node's
inverse or change through :class:`AgentEffects` over a writer agent; if any step fails, the
steps already done are reversed so the project is left as it was.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from aizac.application import history as hist
from aizac.writer.agent import WriterAgent
from aizac.writer.schemas import NovelBeat

if TYPE_CHECKING:
    from aizac.application.tree import UndoTree


class AgentEffects:
    """:class:`aizac.application.history.Effects` over a writer agent."""

    def __init__(self, agent: WriterAgent) -> None:
        self.agent = agent

    def _put_design(
        self, beat_id: int, beat: NovelBeat, cast: hist.Cast | None, step: str,
        written: list[str] | None,
    ) -> None:
        store = self.agent.store
        record = store.beat(beat_id)
        if cast is None:  # history written before casts were kept: keep what the beat names
            cast = [p for p in record.new_characters if p.name in beat.characters]
        if written is None:  # history written before the writer's fields were kept
            written = record.written
        if record.beat != beat or record.new_characters != cast or record.written != written:
            store.update_draft(beat_id, beat, new_characters=cast, step=step, written=written)

    def restore_draft(self, beat_id: int, beat: NovelBeat, cast: hist.Cast | None,
                      written: list[str] | None = None) -> None:
        store = self.agent.store
        if store.beat(beat_id).status == "rejected":
            store.set_status(beat_id, "draft", step="redo")
        self._put_design(beat_id, beat, cast, "redo", written)

    def drop_draft(self, beat_id: int) -> None:
        record = self.agent.store.beat(beat_id)
        if record.status == "draft":
            self.agent.store.set_status(beat_id, "rejected", step="undo")

    def set_design(self, beat_id: int, beat: NovelBeat, cast: hist.Cast | None,
                   written: list[str] | None = None) -> None:
        self._put_design(beat_id, beat, cast, "undo", written)

    def unaccept(self, beat_id: int, commit_ids: Sequence[str]) -> None:
        if self.agent.store.beat(beat_id).status == "accepted":
            self.agent.unaccept(beat_id)

    def reaccept(self, beat_id: int, batch: str, summary: str | None) -> list[str]:
        """Accept the beat again. An undone commit is put back exactly as it was (same memory
        ids, documents, marks; the same turn and summary) with no model call; only history
        written before commits were journaled is extracted again."""
        memory = self.agent.memory
        if not batch or summary is None:
            return list(self.agent.accept(beat_id).memory_ids)
        store = self.agent.store  # under the project's lock, which the service holds
        record = store.beat(beat_id)
        ids = list(memory.redo_commit(batch))
        memory.short_term.add(summary)
        memory.advance(1)
        store.set_status(beat_id, "accepted", expected_version=record.version,
                         memory_ids=ids, summary=summary, step="redo")
        return ids


    def place_image(self, slot: str, image_id: str | None) -> None:
        """Put a stored picture back in its slot (or empty it): no model call."""
        from aizac.illustration.store import ImageStore

        ImageStore(self.agent.store).place(slot, image_id)


def move(agent: WriterAgent, tree: UndoTree, target: str) -> None:
    """Apply the project side of moving ``tree`` to ``target``, then move the tree.

    On failure every step already applied is reversed and the tree is not moved.
    """
    transition = tree.transition(target)
    effects = AgentEffects(agent)
    done: list[Callable[[], Any]] = []
    recommitted: dict[str, list[str]] = {}
    try:
        for node in transition.undone:
            step = hist.Step.from_payload(node.kind, node.payload)
            hist.undo_step(step, node.commit_ids, effects)
            done.append(functools.partial(hist.redo_step, step, effects))
        for node in transition.redone:
            step = hist.Step.from_payload(node.kind, node.payload)
            new_ids = hist.redo_step(step, effects)
            if new_ids is not None:
                recommitted[node.id] = new_ids
            done.append(functools.partial(hist.undo_step, step, new_ids or (), effects))
    except BaseException:
        for inverse in reversed(done):  # put the project back where it was
            with contextlib.suppress(Exception):
                inverse()
        raise
    tree.switch(target)
    for node_id, ids in recommitted.items():
        tree.set_commit_ids(node_id, ids)
