"""What the autopilot's steering notes did to canon, as the memory records it: the provenance
a note's canon changes carry in their metadata, and which notes' changes are recorded.

The autopilot writes these changes; the invariant checker (:mod:`aizac.upkeep.invariants`)
must not call their memories orphans. Both read the rule here, beside the ``steering`` table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select

from aizac.storage.database import EMBEDDED_FILES, scope_of
from aizac.storage.tables import steering

CANON_CHANGE_KEY = "canon_change"
"""Metadata key of a memory a steering note changed canon with (see :func:`steered_sources`)."""


def canon_change_source(run_id: str, note_id: int) -> str:
    """The provenance a steering note's canon changes carry in their memory metadata."""
    return f"steer:{run_id}:{note_id}"


def steered_sources(where: Any) -> set[str]:
    """Provenances (:func:`canon_change_source`) of the steering notes of a project (its store,
    or an embedded project's folder) whose canon changes are recorded (read only; empty for an
    embedded project without a runs store).

    A memory whose ``canon_change`` metadata is one of these is owned by that note, as a
    memory from an accepted beat is owned by the beat."""
    if not hasattr(where, "scope") and not (Path(where) / EMBEDDED_FILES["runs"]).exists():
        return set()
    scope = scope_of(where, "runs")
    with scope.db.read(scope.db.where) as db:
        rows = db.execute(select(steering.c.run_id, steering.c.id).where(
            steering.c.project == scope.project,
            steering.c.status.in_(("interpreted", "applied")))).all()
    return {canon_change_source(str(run), int(note)) for run, note in rows}
