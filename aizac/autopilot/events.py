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
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aizac.autopilot.panel_text import event_note
from aizac.errors import NotFoundError, StorageError
from aizac.text import Text, Verbatim
from aizac.text.message import Clauses, from_data, to_data

RUNS_FILE = "autopilot_runs.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, created_at REAL, updated_at REAL,
    status TEXT, options TEXT, message TEXT DEFAULT '', pause_requested INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, run_id TEXT, at REAL, episode INTEGER,
    node TEXT, kind TEXT, tokens INTEGER, seconds REAL, detail TEXT);
CREATE INDEX IF NOT EXISTS events_run ON events (run_id, id);
CREATE TABLE IF NOT EXISTS decisions (id INTEGER PRIMARY KEY, run_id TEXT, at REAL,
    episode INTEGER, node TEXT, decision TEXT, reason TEXT);
CREATE TABLE IF NOT EXISTS steering (id INTEGER PRIMARY KEY, run_id TEXT, at REAL, text TEXT,
    status TEXT DEFAULT 'new', actions TEXT DEFAULT '[]');
"""
# Added after the first release: a store made before gets the columns on open.
EVENT_COLUMNS = {"step": "INTEGER", "seq": "INTEGER DEFAULT 0"}
STEERING_COLUMNS = {"boundary": "INTEGER", "memory_ids": "TEXT DEFAULT '[]'"}
STEP_INDEX = ("CREATE UNIQUE INDEX IF NOT EXISTS events_step "
              "ON events (run_id, step, node, kind, seq)")


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
    """Runs of one project, in ``<project>/autopilot_runs.sqlite3``."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / RUNS_FILE
        with self._tx() as db:
            db.executescript(SCHEMA)
            for table, columns in (("events", EVENT_COLUMNS), ("steering", STEERING_COLUMNS)):
                have = {r["name"] for r in db.execute(f"PRAGMA table_info({table})")}
                for column, kind in columns.items():
                    if column not in have:
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            db.execute(STEP_INDEX)

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.Error as e:
            raise StorageError("error.autopilot.open_runs", path=str(self.path),
                               cause=str(e)) from e
        db.row_factory = sqlite3.Row
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with closing(self._connect()) as db:
            try:
                with db:
                    yield db
            except sqlite3.Error as e:
                raise StorageError("error.autopilot.write_runs", cause=str(e)) from e

    # ------------------------------------------------------------------------------ runs
    def create(self, options: dict[str, Any]) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        now = time.time()
        with self._tx() as db:
            db.execute(
                "INSERT INTO runs (id, created_at, updated_at, status, options) "
                "VALUES (?, ?, ?, 'running', ?)", (run_id, now, now, json.dumps(options)),
            )
        return run_id

    def runs(self) -> list[Run]:
        with self._tx() as db:
            rows = db.execute("SELECT * FROM runs ORDER BY created_at").fetchall()
        return [_run(r) for r in rows]

    def run(self, run_id: str | None = None) -> Run:
        """Run ``run_id``, or the latest run that has not finished (then the latest one)."""
        runs = self.runs()
        if run_id is not None:
            found = [r for r in runs if r.id == run_id]
        else:
            found = [r for r in runs if r.status != "finished"] or runs
        if not found:
            if run_id:
                raise NotFoundError("error.autopilot.no_run", run=run_id)
            raise NotFoundError("error.autopilot.no_runs")
        return found[-1]

    def set_status(self, run_id: str, status: str,
                   message: Text | Verbatim | Clauses | None = None) -> None:
        """The run's status and where it stands (stored as data, said by each surface)."""
        said = json.dumps(to_data(message), ensure_ascii=False) if message is not None else ""
        with self._tx() as db:
            db.execute(
                "UPDATE runs SET status = ?, message = ?, updated_at = ? WHERE id = ?",
                (status, said, time.time(), run_id),
            )

    def set_options(self, run_id: str, options: dict[str, Any]) -> None:
        with self._tx() as db:
            db.execute("UPDATE runs SET options = ? WHERE id = ?", (json.dumps(options), run_id))

    def request_pause(self, run_id: str, on: bool = True) -> None:
        """Ask a running run to pause before its next node (another process may ask)."""
        with self._tx() as db:
            db.execute("UPDATE runs SET pause_requested = ? WHERE id = ?", (int(on), run_id))

    # ---------------------------------------------------------------------------- events
    def add_event(
        self, run_id: str, episode: int, node: str, kind: str, *, tokens: int = 0,
        seconds: float = 0.0, step: int | None = None, seq: int = 0, **detail: Any,
    ) -> None:
        """One event row; with ``step`` (the graph step of a node's execution) the row is
        written once per (run, step, node, kind, seq): a replay of the node updates it."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO events (run_id, at, episode, node, kind, tokens, seconds, detail, "
                "step, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id, step, node, kind, seq) DO UPDATE SET "
                "tokens = events.tokens + excluded.tokens, "
                "seconds = events.seconds + excluded.seconds, "
                "detail = json_set(excluded.detail, '$.replayed', json('true'))",
                (run_id, time.time(), episode, node, kind, tokens, seconds,
                 json.dumps(detail, ensure_ascii=False, default=str), step, seq),
            )

    def events(self, run_id: str, after: int = 0, limit: int = 10_000) -> list[Event]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT * FROM events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?",
                (run_id, after, limit),
            ).fetchall()
        return [_event(r) for r in rows]

    def last_events(self, run_id: str, n: int, *, skip_kind: str = "") -> list[Event]:
        """The run's last ``n`` events (without those of kind ``skip_kind``), oldest first:
        a live view reads a tail, not the whole run."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT * FROM events WHERE run_id = ? AND kind != ? ORDER BY id DESC LIMIT ?",
                (run_id, skip_kind, n),
            ).fetchall()
        return [_event(r) for r in reversed(rows)]

    def tokens(self, run_id: str, episode: int | None = None) -> int:
        """Tokens the run (or one of its episodes) spent, from its node-end events."""
        query = "SELECT COALESCE(SUM(tokens), 0) FROM events WHERE run_id = ?"
        args: list[Any] = [run_id]
        if episode is not None:
            query += " AND episode = ?"
            args.append(episode)
        with self._tx() as db:
            return int(db.execute(query, args).fetchone()[0])

    # ------------------------------------------------------------------ decisions, steering
    def add_decision(
        self, run_id: str, episode: int, node: str, decision: str, reason: str
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO decisions (run_id, at, episode, node, decision, reason) "
                "VALUES (?, ?, ?, ?, ?, ?)", (run_id, time.time(), episode, node, decision, reason),
            )

    def decisions(self, run_id: str) -> list[dict[str, Any]]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT * FROM decisions WHERE run_id = ? ORDER BY id", (run_id,)
            ).fetchall()
        return [dict(r) for r in rows]

    def add_steering(self, run_id: str, text: str) -> int:
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO steering (run_id, at, text) VALUES (?, ?, ?)",
                (run_id, time.time(), text),
            )
            return int(cur.lastrowid or 0)

    def new_steering(self, run_id: str) -> list[tuple[int, str]]:
        with self._tx() as db:
            rows = db.execute(
                "SELECT id, text FROM steering WHERE run_id = ? AND status = 'new' ORDER BY id",
                (run_id,),
            ).fetchall()
        return [(int(r["id"]), str(r["text"])) for r in rows]

    def steering_at(self, run_id: str, boundary: int) -> list[SteeringNote]:
        """The notes to apply at episode boundary ``boundary``: new ones, ones interpreted but
        not applied yet, and ones applied at this same boundary (a replayed boundary node must
        derive the same control actions again)."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT * FROM steering WHERE run_id = ? AND (status IN ('new', 'interpreted') "
                "OR boundary = ?) ORDER BY id", (run_id, boundary),
            ).fetchall()
        return [SteeringNote(int(r["id"]), str(r["text"]), str(r["status"]),
                             json.loads(r["actions"] or "[]")) for r in rows]

    def interpret_steering(self, run_id: str, note_id: int, boundary: int, episode: int,
                           actions: list[dict[str, Any]], lines: list[str]) -> None:
        """Record a note's actions and their decisions-log lines in one transaction, before any
        of them is applied (a replay applies these actions, never asks the arbiter again)."""
        with self._tx() as db:
            db.execute("UPDATE steering SET status = 'interpreted', boundary = ?, actions = ? "
                       "WHERE id = ?",
                       (boundary, json.dumps(actions, ensure_ascii=False), note_id))
            for line in lines:
                db.execute("INSERT INTO decisions (run_id, at, episode, node, decision, reason) "
                           "VALUES (?, ?, ?, 'steer', 'apply', ?)",
                           (run_id, time.time(), episode, line))

    def close_steering(self, steering_id: int, actions: list[dict[str, Any]],
                       memory_ids: list[str] | None = None) -> None:
        """The note is applied; ``memory_ids``: the canon changes it made."""
        with self._tx() as db:
            db.execute(
                "UPDATE steering SET status = 'applied', actions = ?, memory_ids = ? "
                "WHERE id = ?",
                (json.dumps(actions, ensure_ascii=False), json.dumps(memory_ids or []),
                 steering_id),
            )


@dataclass(frozen=True)
class SteeringNote:
    id: int
    text: str
    status: str  # new, interpreted (actions recorded), applied
    actions: list[dict[str, Any]]


def canon_change_source(run_id: str, note_id: int) -> str:
    """The provenance a steering note's canon changes carry in their memory metadata."""
    return f"steer:{run_id}:{note_id}"


CANON_CHANGE_KEY = "canon_change"
"""Metadata key of a memory a steering note changed canon with (see :func:`steered_sources`)."""


def steered_sources(directory: Path) -> set[str]:
    """Provenances (:func:`canon_change_source`) of the steering notes of the project in
    ``directory`` whose canon changes are recorded (read only; empty without a runs store).

    A memory whose ``canon_change`` metadata is one of these is owned by that note, as a
    memory from an accepted beat is owned by the beat."""
    path = Path(directory) / RUNS_FILE
    if not path.exists():
        return set()
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)) as db:
            rows = db.execute("SELECT run_id, id FROM steering "
                              "WHERE status IN ('interpreted', 'applied')").fetchall()
    except sqlite3.Error as e:
        raise StorageError("error.autopilot.read_runs", path=str(path), cause=str(e)) from e
    return {canon_change_source(str(run), int(note)) for run, note in rows}


def _event(r: sqlite3.Row) -> Event:
    return Event(r["id"], r["run_id"], r["at"], r["episode"], r["node"], r["kind"],
                 r["tokens"], r["seconds"], json.loads(r["detail"] or "{}"))


def _run(r: sqlite3.Row) -> Run:
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
