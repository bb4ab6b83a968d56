"""Accept as one unit of work, the crash-recovery check, and deferred reinforcement.

An accept writes three stores: memory (the committed batch), the story state (short-term summary
and turn) and the project database (the beat marked accepted). :func:`commit_accept` runs them as
one unit in the calling process: a failure after the memory commit is undone before the error is
raised (or, when even the undo fails, left for :func:`recover` to finish). :func:`recover` is run
at the start of every write operation (not only when a project is opened), so a killed or failed
accept, a plot whose memories were seeded but never saved, and a turn out of step with the
accepted beats are repaired before anything new is written. Every repair is idempotent.

Memories that a generation used are reinforced only once what it produced is stored: the ids a
beat design's context held are kept with the draft (:func:`keep_context`) and reinforced by the
accept's own memory commit, in its one update (:func:`reinforce_with_commit`); a regenerated
design replaces them, so discarded, failed or aborted generations never change a strength.

Summary and turn are written together by ``WriterMemory.finish_beat`` (one state write), so a
kill can never leave the summary added but the turn not advanced.

Reading an imported scene into memory (:func:`commit_read`) is the same unit for a beat that is
already accepted: its memories, summary and turn, then its design, memory ids, summary and the
import record's progress in one project transaction (:meth:`ProjectStore.read_scene`). The
turn counts the beats the memory has read: an imported scene not read yet is no turn, so scene
``k`` of a manuscript is read at turn ``k - 1`` and leaves it at ``k``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aizac.errors import AizacError, StorageError
from aizac.storage.killpoints import checkpoint
from aizac.writer import extraction
from aizac.writer.ports import Batch, Memory
from aizac.writer.project import BeatRecord, ProjectStore, Step
from aizac.writer.schemas import NovelBeat

if TYPE_CHECKING:
    from aizac.writer.schemas import CharacterProfile, NovelBeat

RECENT_STEPS = 20
"""Steps read by :func:`recover` (a pending step is always among the last few)."""
ACCEPT_STEPS = ("accepting", "accept-undone", "accept-failed")
READ_STEPS = ("reading", "read-undone", "read-failed")
PLAN_STEPS = ("planning", "plot", "plot-edit", "plan-undone")


def storage_error(where: str, error: BaseException) -> StorageError | None:
    """A :class:`StorageError` for a raw database error (SQLite, PostgreSQL) or ``OSError`` from
    a lower layer (a full disk), or ``None`` when ``error`` should propagate as it is; ``where``
    is the beat (``1-2``)."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(error, sqlite3.Error | DBAPIError | OSError) and not isinstance(
            error, AizacError):
        return StorageError("error.accept.storage", where=where, cause=str(error))
    return None


def commit_accept(
    store: ProjectStore, memory: Memory, record: BeatRecord, batch: Batch, future: list[str],
    summary: str,
) -> BeatRecord:
    """Commit an accept's memories, summary, turn and beat status as one unit of work."""
    turn = int(memory.turn)
    return _commit_unit(
        store, memory, record, batch, "accept",
        {"id": record.id, "ids": future, "summary": summary, "turn": turn},
        lambda ids: finish_accept(store, memory, record, ids, summary, turn))


def commit_read(
    store: ProjectStore, memory: Memory, record: BeatRecord, beat: NovelBeat, batch: Batch,
    future: list[str], summary: str, *, profiles: Sequence[CharacterProfile] = (),
    kv: Mapping[str, str] | None = None,
) -> BeatRecord:
    """Commit what reading the imported scene ``record`` found as one unit of work: its
    memories, its summary and turn, then (one project transaction) its design ``beat``, memory
    ids, summary, the profiles it introduced and the ``kv`` entries. A failure after the memory
    commit is undone before the error is raised; a kill is finished by :func:`recover`."""
    turn = int(memory.turn)
    detail = {"id": record.id, "ids": future, "summary": summary, "turn": turn,
              "beat": beat.model_dump(), "profiles": [p.model_dump() for p in profiles],
              "kv": dict(kv or {})}
    return _commit_unit(
        store, memory, record, batch, "read", detail,
        lambda ids: finish_read(store, memory, record, beat, ids, summary, turn,
                                profiles=profiles, kv=kv))


# The journal's step names of each unit: logged before, failed, undone.
_STEPS = {"accept": ("accepting", "accept-failed", "accept-undone"),
          "read": ("reading", "read-failed", "read-undone")}


def _commit_unit(
    store: ProjectStore, memory: Memory, record: BeatRecord, batch: Batch, kind: str,
    detail: dict[str, Any], finish: Callable[[list[str]], BeatRecord],
) -> BeatRecord:
    """The one unit of work of an accept and of a read: the step logged, the memory batch
    committed, then ``finish`` (summary, turn, the project's rows; idempotent, so
    :func:`recover` replays it after a kill); a failure after the commit is undone."""
    logged, failed, undone = _STEPS[kind]
    turn = int(detail["turn"])
    before = list(memory.short_term.items())
    what = f"{record.episode}-{record.index}"
    try:
        # Logged before the commit: after a kill past the commit, recover() finishes from here.
        store.log_step(logged, detail)
        checkpoint(f"{kind}:logged")
        ids = list(batch.commit())
    except BaseException as e:
        with contextlib.suppress(Exception):
            batch.discard()
        # A memory server that timed out may still apply the write later: recover() takes any
        # of these memories back on the next write, so "nothing was written" stays true.
        with contextlib.suppress(Exception):
            store.log_step(failed, {"id": record.id, "ids": detail["ids"]})
        error = storage_error(what, e)
        if error is None:
            raise
        raise error from e
    checkpoint(f"{kind}:committed")
    try:
        return finish(ids)
    except BaseException as e:
        _undo(store, memory, record, ids, turn, before, what, e, step=undone)
        error = storage_error(what, e)
        if error is None:
            raise
        raise error from e


def finish_read(
    store: ProjectStore, memory: Memory, record: BeatRecord, beat: NovelBeat, ids: list[str],
    summary: str, turn: int, *, profiles: Sequence[CharacterProfile] = (),
    kv: Mapping[str, str] | None = None,
) -> BeatRecord:
    """The writes of a read after its memory commit (idempotent: recovery replays them)."""
    if int(memory.turn) <= turn:
        memory.finish_beat(summary, turns=1, ids=ids)
    checkpoint("read:summarised")
    return store.read_scene(record.id, beat, memory_ids=ids, summary=summary,
                            new_characters=list(profiles), kv=kv)


def finish_accept(
    store: ProjectStore, memory: Memory, record: BeatRecord, ids: list[str], summary: str,
    turn: int,
) -> BeatRecord:
    """The writes after the memory commit (idempotent: recovery replays them)."""
    # Summary and turn are ONE write (WriterMemory.finish_beat): a kill leaves both or neither,
    # so an advanced turn means the summary is in, and replaying adds it once.
    if int(memory.turn) <= turn:
        memory.finish_beat(summary, turns=1, ids=ids)
    checkpoint("accept:summarised")
    return store.set_status(
        record.id, "accepted", expected_version=record.version, memory_ids=ids, summary=summary,
    )


def _undo(
    store: ProjectStore, memory: Memory, record: BeatRecord, ids: list[str], turn: int,
    before: list[str], what: str, cause: BaseException, *, step: str = "accept-undone",
) -> None:
    """Take back a half-done accept; if that fails too, say that the next command finishes it."""
    try:
        memory.undo_commit(ids)
        if list(memory.short_term.items()) != before:
            memory.short_term.pop()
        if int(memory.turn) != turn:
            memory.set_turn(turn)
        store.log_step(step, {"id": record.id})
    except BaseException as e:
        raise StorageError("error.accept.not_undone", where=what, cause=str(cause),
                           undo=str(e)) from cause


# ------------------------------------------------------------------------------- recovery
def recover(store: ProjectStore, memory: Memory) -> None:
    """Repair what a killed or failed write left half done (call under ``store.lock()``)."""
    steps = store.steps(limit=RECENT_STEPS)
    _finish_pending_accept(store, memory, steps)
    _finish_pending_read(store, memory, steps)
    _drop_unsaved_plot_memories(store, memory, steps)
    _realign_turn(store, memory)


def _latest(steps: Sequence[Step], kinds: Sequence[str]) -> Step | None:
    return next((s for s in steps if s.kind in kinds), None)


def _finish_pending_accept(store: ProjectStore, memory: Memory, steps: Sequence[Step]) -> None:
    step = _latest(steps, ACCEPT_STEPS)
    if step is not None and step.kind == "accept-failed":
        _take_back_late_memories(store, memory, step)
        return
    if step is None or step.kind != "accepting":
        return
    try:
        record = store.beat(int(step.detail["id"]))
    except (AizacError, KeyError, ValueError):
        return
    if record.status != "draft":
        return
    ids = [str(i) for i in step.detail.get("ids", [])]
    turn = int(step.detail.get("turn", memory.turn))
    if (ids and _committed(memory, ids[0])) or int(memory.turn) > turn:
        finish_accept(store, memory, record, ids, str(step.detail.get("summary", "")), turn)


def _finish_pending_read(store: ProjectStore, memory: Memory, steps: Sequence[Step]) -> None:
    """A read of an imported scene killed after its memory commit: finish it (its design,
    summary and the import record's progress are in the logged step); a failed one's late
    memories are taken back. A read killed before its commit left nothing: the scene is unread
    and is read again."""
    from aizac.writer.schemas import CharacterProfile, NovelBeat

    step = _latest(steps, READ_STEPS)
    if step is not None and step.kind == "read-failed":
        _take_back_late_memories(store, memory, step, undone="read-undone")
        return
    if step is None or step.kind != "reading":
        return
    try:
        record = store.beat(int(step.detail["id"]))
        beat = NovelBeat.model_validate(step.detail["beat"])
        profiles = [CharacterProfile.model_validate(p) for p in step.detail.get("profiles", [])]
    except (AizacError, KeyError, ValueError):
        return
    if record.status != "accepted" or record.summary:
        return
    ids = [str(i) for i in step.detail.get("ids", [])]
    turn = int(step.detail.get("turn", memory.turn))
    if (ids and _committed(memory, ids[0])) or int(memory.turn) > turn:
        finish_read(store, memory, record, beat, ids, str(step.detail.get("summary", "")), turn,
                    profiles=profiles, kv={str(k): str(v) for k, v in
                                           dict(step.detail.get("kv", {})).items()})


def _take_back_late_memories(store: ProjectStore, memory: Memory, step: Step, *,
                             undone: str = "accept-undone") -> None:
    """A failed accept's memories that reached the memory server after all (a write that timed
    out there and was applied later): delete them, so the accept stays undone."""
    late = [str(i) for i in step.detail.get("ids", []) if _present(memory, str(i))]
    if late:
        memory.undo_commit(late)
    store.log_step(undone, {"id": step.detail.get("id"), "late": late})


def _drop_unsaved_plot_memories(
    store: ProjectStore, memory: Memory, steps: Sequence[Step]
) -> None:
    """A plan killed between seeding its memories and saving the plot: take the seeds back."""
    step = _latest(steps, PLAN_STEPS)
    if step is None or step.kind != "planning":
        return
    record = store.plot()
    owned = set(record.memory_ids if record else [])
    seeds = [h.id for h in memory.get_where({"chapter": {"$eq": 0}}) if h.id not in owned]
    if seeds:
        memory.undo_commit(seeds)
    store.log_step("plan-undone", {"ids": seeds})


def _realign_turn(store: ProjectStore, memory: Memory) -> None:
    # the turn counts the beats the memory has read: an imported scene not read yet is none
    accepted = store.count_beats("accepted") - store.count_unread()
    turn = int(memory.turn)
    if turn < accepted:
        memory.advance(accepted - turn)
    elif turn > accepted:  # an undo that stopped half way: the summary went with the turn
        last = store.last_accepted()
        items = list(memory.short_term.items())
        if items and (last is None or items[-1] != last.summary):
            memory.short_term.pop()
        memory.set_turn(accepted)


def _present(memory: Memory, memory_id: str) -> bool:
    """Whether the memory exists; a memory server that cannot say raises (so nothing is
    concluded from its silence)."""
    from aizac.errors import NotFoundError

    try:
        memory.get(memory_id)
    except (NotFoundError, KeyError):
        return False
    return True


def _committed(memory: Memory, memory_id: str) -> bool:
    try:
        memory.get(memory_id)
    except (AizacError, KeyError):
        return False
    return True


# --------------------------------------------------------------------- deferred reinforcement
def context_ids(text: str) -> list[str]:
    """The memory ids a context text was built from (see
    :class:`~aizac.writer.context.UsedContext`), if known."""
    return list(getattr(text, "memory_ids", ()))


def keep_context(store: ProjectStore, beat_id: int, text: str) -> None:
    """Remember which memories the stored design of ``beat_id`` was written from."""
    store.kv_set(f"context:{beat_id}", json.dumps(context_ids(text)))


def kept_context(store: ProjectStore, beat_id: int) -> list[str]:
    """The ids of the memories the stored design of ``beat_id`` was written from."""
    kept = store.kv_get(f"context:{beat_id}")
    return [str(i) for i in json.loads(kept[0])] if kept else []


def keep_planned_memory(store: ProjectStore, beat_id: int, beat: NovelBeat,
                        found: extraction.Extracted | None) -> None:
    """Remember what the episode design said draft ``beat_id`` adds to memory, with the beat
    it was said of ("plan this episode": the design carries each beat's memory, issue 43);
    ``None`` forgets an earlier one (the draft was designed again without it)."""
    data = {"beat": beat.model_dump(mode="json"), "found": found.dump()} if found else {}
    store.kv_set(f"planned:{beat_id}", json.dumps(data, ensure_ascii=False))


def planned_memory(store: ProjectStore, beat_id: int,
                   beat: NovelBeat) -> extraction.Extracted | None:
    """The memory the episode design gave draft ``beat_id``, when the draft still holds the
    beat it was given for (a beat the writer changed is extracted from what it now says)."""
    kept = store.kv_get(f"planned:{beat_id}")
    data = json.loads(kept[0]) if kept else {}
    if not data or NovelBeat.model_validate(data["beat"]) != beat:
        return None
    return extraction.Extracted.load(data["found"])


def reinforce_with_commit(store: ProjectStore, batch: Batch, beat_id: int) -> None:
    """Let the accept's memory commit reinforce what the accepted design used, in the same
    single update (no second write per accept)."""
    reinforced = batch.reinforced
    reinforced.extend(i for i in kept_context(store, beat_id) if i not in reinforced)


def reinforce(memory: Memory, ids: Sequence[str]) -> None:
    """Reinforce ``ids`` now that the generation using them is stored (best effort)."""
    if ids:
        with contextlib.suppress(AizacError, KeyError):
            memory.reinforce(list(dict.fromkeys(ids)))

