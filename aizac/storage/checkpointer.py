"""The LangGraph checkpointer of a project's autopilot runs, chosen by a setting.

``AIZAC_AUTOPILOT_CHECKPOINTER=auto`` (default) keeps checkpoints where the project keeps its
rows: ``<project>/autopilot_checkpoints.sqlite3`` when embedded, the PostgreSQL database of
``AIZAC_DATABASE_URL`` otherwise (LangGraph's Postgres saver, ``langgraph-checkpoint-postgres``,
whose tables ``aizac db upgrade`` creates), so a run paused on one process resumes on any.
``sqlite`` and ``postgres:URL`` choose one explicitly; ``memory`` keeps them in the process
(tests). On a shared database a run's thread is named after its project
(:func:`thread_id`), so two projects' runs never meet.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aizac.errors import ConfigError

CHECKPOINTS_FILE = "autopilot_checkpoints.sqlite3"


def checkpointer_spec(spec: str, database_url: str | None) -> str:
    """``spec`` with ``auto`` resolved: ``postgres:<AIZAC_DATABASE_URL>`` or ``sqlite`` (pure)."""
    if spec != "auto":
        return spec
    return f"postgres:{database_url}" if database_url else "sqlite"


def thread_id(run_id: str, project_key: str = "") -> str:
    """The LangGraph thread of run ``run_id`` (prefixed by the project's key on a shared
    database; the bare run id in a project's own file, as it always was) (pure)."""
    return f"{project_key}/{run_id}" if project_key else run_id


def open_checkpointer(directory: Path, spec: str = "sqlite") -> Any:
    """A checkpointer for the project in ``directory`` per ``spec`` (see module docstring)."""
    kind, _, rest = spec.partition(":")
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        conn = sqlite3.connect(Path(directory) / CHECKPOINTS_FILE, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        return SqliteSaver(conn)
    if kind == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        return InMemorySaver()
    if kind in ("postgres", "postgresql"):
        saver_class, connect = _postgres()
        return saver_class(connect(rest))
    raise ConfigError("error.autopilot.checkpointer", spec=spec)


def _postgres() -> tuple[Any, Any]:
    """LangGraph's Postgres saver and a connect function for it (``ConfigError`` if missing)."""
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
    except ImportError as e:
        raise ConfigError("error.autopilot.postgres_saver") from e

    def connect(url: str) -> Any:
        from aizac.storage.database import libpq_url

        # The saver's own settings: autocommit, dict rows, no server-side prepared statements.
        return psycopg.connect(libpq_url(url), autocommit=True, prepare_threshold=0,
                               row_factory=dict_row)

    return PostgresSaver, connect


def setup_postgres_saver(url: str) -> None:
    """Create or migrate the saver's tables in the database at ``url`` (``aizac db upgrade``)."""
    saver_class, connect = _postgres()
    with connect(url) as conn:
        saver_class(conn).setup()


def delete_threads(saver: Any, threads: list[str]) -> None:
    """Drop the checkpoints of ``threads`` (a deleted project's runs)."""
    for thread in threads:
        saver.delete_thread(thread)


def copy_checkpoints(source: Any, target: Any, rename: Callable[[str], str],
                     threads: Iterable[str] | None = None) -> int:
    """Copy checkpoints (with their pending writes) from the saver ``source`` to ``target``,
    each under the thread ``rename(thread)``: every thread of ``source``, or only ``threads``.
    Oldest first, each after its parent; putting one twice is putting it once (the savers
    upsert by checkpoint id). Returns how many were copied."""
    if threads is None:
        items = list(source.list(None))
    else:
        items = [item for thread in threads
                 for item in source.list({"configurable": {"thread_id": thread}})]
    items.sort(key=lambda t: (t.config["configurable"]["thread_id"], t.checkpoint["id"]))
    for item in items:
        conf = item.config["configurable"]
        parent = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        put_config: dict[str, Any] = {"configurable": {
            "thread_id": rename(str(conf["thread_id"])),
            "checkpoint_ns": conf.get("checkpoint_ns", ""),
            **({"checkpoint_id": parent} if parent else {})}}
        stored = target.put(put_config, item.checkpoint, item.metadata,
                            dict(item.checkpoint.get("channel_versions", {})))
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task, channel, value in item.pending_writes or []:
            by_task.setdefault(task, []).append((channel, value))
        for task, writes in by_task.items():
            target.put_writes(stored, writes, task)
    return len(items)


def close_checkpointer(saver: Any) -> None:
    """Close the saver's connection (if it has one)."""
    conn = getattr(saver, "conn", None)
    close = getattr(conn, "close", None)
    if close is not None:
        close()
