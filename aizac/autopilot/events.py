"""The runs store: runs, their events, decisions and steering notes (SQLite, project folder).

Every node start and end, verdict, rewrite, decision and gate is an event row (run id, episode,
node, tokens, seconds) that the CLI and the web tab read live. Writes are single-row
transactions in WAL mode, so a reader in another process (the web app) sees them at once.

A node's events carry the graph step they belong to: a node replayed after a kill or a resume
runs at the same step, so its rows are written once (an ``end`` row replayed adds the replay's
tokens and seconds and is marked ``replayed``) and every surface shows each node once.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, or_, select, update
from sqlalchemy.exc import DBAPIError

from aizac.autopilot.panel_text import event_note
from aizac.errors import NotFoundError, StorageError
from aizac.storage.database import EMBEDDED_FILES, Scope, scope_of
from aizac.storage.tables import decisions, events, next_id, runs, steering
from aizac.text import Text, Verbatim
from aizac.text.message import Clauses, from_data, to_data

RUNS_FILE = EMBEDDED_FILES["runs"]


@dataclass(frozen=True)
class Run:
    id: str
    created_at: float
    updated_at: float
    status: str  # running, waiting (at a gate), paused, finished, failed
    options: dict[str, Any]
    message: Text | Verbatim | Clauses  # where it stands, said by each surface
    pause_requested: bool


@dataclass(frozen=True)
class Event:
    id: int
    run_id: str
    at: float
    episode: int
    node: str
    kind: str  # start, end, verdict, rewrite, decision, gate, warn, pause, finish, error
    tokens: int
    seconds: float
    detail: dict[str, Any]

    def line(self) -> str:
        """One line for a log (English): ``ep 3  review   verdict   120 tok  1.2 s  accept``."""
        note = event_note(self.node, self.kind, self.detail, "en")
        return (
            f"ep {self.episode:<3} {self.node:<14} {self.kind:<8} {self.tokens:>6} tok "
            f"{self.seconds:>6.2f} s  {str(note)[:70]}"
        ).rstrip()


class RunStore:
    """Runs of one project: ``<project>/autopilot_runs.sqlite3``, or the server database.

    Args:
        where: the project's store (:class:`~aizac.writer.project.ProjectStore`), or the folder
            of an embedded project.
    """

    def __init__(self, where: Any) -> None:
        self.scope: Scope = scope_of(where, "runs")
        self.key = self.scope.project

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        db = self.scope.db
        try:
            with db.write(self.scope.db.where) as conn:
                db.serialise(conn, self.key)
                yield conn
        except (StorageError, DBAPIError) as e:
            cause = e.text if isinstance(e, StorageError) else str(e)
            raise StorageError("error.autopilot.write_runs", cause=cause) from e

    def _read(self) -> Any:
        return self.scope.db.read(self.scope.db.where)

    # ------------------------------------------------------------------------------ runs
    def create(self, options: Mapping[str, object]) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        now = time.time()
        with self._tx() as db:
            db.execute(runs.insert().values(project=self.key, id=run_id, created_at=now,
                                            updated_at=now, status="running",
                                            options=json.dumps(options)))
        return run_id

    def runs(self) -> list[Run]:
        with self._read() as db:
            rows = db.execute(select(runs).where(runs.c.project == self.key)
                              .order_by(runs.c.created_at)).mappings().all()
        return [_run(r) for r in rows]

    def run(self, run_id: str | None = None) -> Run:
        """Run ``run_id``, or the latest run that has not finished (then the latest one)."""
        every = self.runs()
        if run_id is not None:
            found = [r for r in every if r.id == run_id]
        else:
            found = [r for r in every if r.status != "finished"] or every
        if not found:
            if run_id:
                raise NotFoundError("error.autopilot.no_run", run=run_id)
            raise NotFoundError("error.autopilot.no_runs")
        return found[-1]

    def _update_run(self, run_id: str) -> Any:
        return update(runs).where(runs.c.project == self.key, runs.c.id == run_id)

    def set_status(self, run_id: str, status: str,
                   message: Text | Verbatim | Clauses | None = None) -> None:
        """The run's status and where it stands (stored as data, said by each surface)."""
        said = json.dumps(to_data(message), ensure_ascii=False) if message is not None else ""
        with self._tx() as db:
            db.execute(self._update_run(run_id).values(status=status, message=said,
                                                        updated_at=time.time()))

    def set_options(self, run_id: str, options: Mapping[str, object]) -> None:
        with self._tx() as db:
            db.execute(self._update_run(run_id).values(options=json.dumps(options)))

    def request_pause(self, run_id: str, on: bool = True) -> None:
        """Ask a running run to pause before its next node (another process may ask)."""
        with self._tx() as db:
            db.execute(self._update_run(run_id).values(pause_requested=int(on)))

    # ---------------------------------------------------------------------------- events
    def add_event(
        self, run_id: str, episode: int, node: str, kind: str, *, tokens: int = 0,
        seconds: float = 0.0, step: int | None = None, seq: int = 0, **detail: Any,
    ) -> None:
        """One event row; with ``step`` (the graph step of a node's execution) the row is
        written once per (run, step, node, kind, seq): a replay of the node updates it."""
        text = json.dumps(detail, ensure_ascii=False, default=str)
        replayed = json.dumps({**json.loads(text), "replayed": True}, ensure_ascii=False)
        stmt = self.scope.db.insert(events).values(
            project=self.key, id=next_id(events, self.key), run_id=run_id, at=time.time(),
            episode=episode, node=node,
            kind=kind, tokens=tokens, seconds=seconds, detail=text, step=step, seq=seq,
        )
        with self._tx() as db:
            db.execute(stmt.on_conflict_do_update(
                index_elements=["project", "run_id", "step", "node", "kind", "seq"],
                set_={"tokens": events.c.tokens + stmt.excluded.tokens,
                      "seconds": events.c.seconds + stmt.excluded.seconds,
                      "detail": replayed},
            ))

    def _events(self, run_id: str) -> Any:
        return select(events).where(events.c.project == self.key, events.c.run_id == run_id)

    def events(self, run_id: str, after: int = 0, limit: int = 10_000) -> list[Event]:
        with self._read() as db:
            rows = db.execute(self._events(run_id).where(events.c.id > after)
                              .order_by(events.c.id).limit(limit)).mappings().all()
        return [_event(r) for r in rows]

    def last_events(self, run_id: str, n: int, *, skip_kind: str = "") -> list[Event]:
        """The run's last ``n`` events (without those of kind ``skip_kind``), oldest first:
        a live view reads a tail, not the whole run."""
        with self._read() as db:
            rows = db.execute(self._events(run_id).where(events.c.kind != skip_kind)
                              .order_by(events.c.id.desc()).limit(n)).mappings().all()
        return [_event(r) for r in reversed(rows)]

    def tokens(self, run_id: str, episode: int | None = None) -> int:
        """Tokens the run (or one of its episodes) spent, from its node-end events."""
        query = select(func.coalesce(func.sum(events.c.tokens), 0)).where(
            events.c.project == self.key, events.c.run_id == run_id)
        if episode is not None:
            query = query.where(events.c.episode == episode)
        with self._read() as db:
            return int(db.execute(query).scalar() or 0)

    # ------------------------------------------------------------------ decisions, steering
    def add_decision(
        self, run_id: str, episode: int, node: str, decision: str, reason: str
    ) -> None:
        with self._tx() as db:
            db.execute(decisions.insert().values(
                project=self.key, id=next_id(decisions, self.key), run_id=run_id,
                at=time.time(), episode=episode, node=node,
                decision=decision, reason=reason))

    def decisions(self, run_id: str) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(select(decisions).where(
                decisions.c.project == self.key, decisions.c.run_id == run_id,
            ).order_by(decisions.c.id)).mappings().all()
        return [{k: v for k, v in r.items() if k != "project"} for r in rows]

    def add_steering(self, run_id: str, text: str) -> int:
        with self._tx() as db:
            return int(db.execute(steering.insert().values(
                project=self.key, id=next_id(steering, self.key), run_id=run_id,
                at=time.time(), text=text,
            ).returning(steering.c.id)).scalar_one())

    def _steering(self, run_id: str) -> Any:
        return select(steering).where(steering.c.project == self.key,
                                      steering.c.run_id == run_id)

    def new_steering(self, run_id: str) -> list[tuple[int, str]]:
        with self._read() as db:
            rows = db.execute(self._steering(run_id).where(steering.c.status == "new")
                              .order_by(steering.c.id)).mappings().all()
        return [(int(r["id"]), str(r["text"])) for r in rows]

    def steering_at(self, run_id: str, boundary: int) -> list[SteeringNote]:
        """The notes to apply at episode boundary ``boundary``: new ones, ones interpreted but
        not applied yet, and ones applied at this same boundary (a replayed boundary node must
        derive the same control actions again)."""
        with self._read() as db:
            rows = db.execute(self._steering(run_id).where(or_(
                steering.c.status.in_(("new", "interpreted")), steering.c.boundary == boundary,
            )).order_by(steering.c.id)).mappings().all()
        return [SteeringNote(int(r["id"]), str(r["text"]), str(r["status"]),
                             json.loads(r["actions"] or "[]")) for r in rows]

    def _update_note(self, note_id: int) -> Any:
        return update(steering).where(steering.c.project == self.key, steering.c.id == note_id)

    def interpret_steering(self, run_id: str, note_id: int, boundary: int, episode: int,
                           actions: list[dict[str, Any]], lines: list[str]) -> None:
        """Record a note's actions and their decisions-log lines in one transaction, before any
        of them is applied (a replay applies these actions, never asks the arbiter again)."""
        with self._tx() as db:
            db.execute(self._update_note(note_id).values(
                status="interpreted", boundary=boundary,
                actions=json.dumps(actions, ensure_ascii=False)))
            for line in lines:
                db.execute(decisions.insert().values(
                    project=self.key, id=next_id(decisions, self.key), run_id=run_id,
                    at=time.time(), episode=episode,
                    node="steer", decision="apply", reason=line))

    def close_steering(self, steering_id: int, actions: list[dict[str, Any]],
                       memory_ids: list[str] | None = None) -> None:
        """The note is applied; ``memory_ids``: the canon changes it made."""
        with self._tx() as db:
            db.execute(self._update_note(steering_id).values(
                status="applied", actions=json.dumps(actions, ensure_ascii=False),
                memory_ids=json.dumps(memory_ids or [])))

    def thread_runs(self) -> list[str]:
        """Every run id of the project (whose checkpoints a deletion drops)."""
        with self._read() as db:
            return [str(r) for r in db.execute(
                select(runs.c.id).where(runs.c.project == self.key)).scalars()]


@dataclass(frozen=True)
class SteeringNote:
    id: int
    text: str
    status: str  # new, interpreted (actions recorded), applied
    actions: list[dict[str, Any]]


def _event(r: Mapping[Any, Any]) -> Event:
    return Event(r["id"], r["run_id"], r["at"], r["episode"], r["node"], r["kind"],
                 r["tokens"], r["seconds"], json.loads(r["detail"] or "{}"))


def _run(r: Mapping[Any, Any]) -> Run:
    return Run(r["id"], r["created_at"], r["updated_at"], r["status"],
               json.loads(r["options"] or "{}"), _message(r["message"] or ""),
               bool(r["pause_requested"]))


def _message(stored: str) -> Text | Verbatim | Clauses:
    """A run's stored message: data (a catalogue text), or an older run's English sentence."""
    try:
        data = json.loads(stored)
    except ValueError:
        return Verbatim(stored)
    return from_data(data) if isinstance(data, dict) else Verbatim(stored)
