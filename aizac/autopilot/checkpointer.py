"""The LangGraph checkpointer of a project's autopilot runs, chosen by a setting.

``AIZAC_AUTOPILOT_CHECKPOINTER=sqlite`` (default) keeps checkpoints in
``<project>/autopilot_checkpoints.sqlite3``; ``postgres:URL`` uses LangGraph's Postgres saver
(install ``langgraph-checkpoint-postgres``); ``memory`` keeps them in the process (tests).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from aizac.errors import ConfigError

CHECKPOINTS_FILE = "autopilot_checkpoints.sqlite3"


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
        try:
            import psycopg  # type: ignore[import-not-found, unused-ignore]
            from langgraph.checkpoint.postgres import (  # type: ignore[import-not-found, unused-ignore]
                PostgresSaver,
            )
            from psycopg.rows import dict_row  # type: ignore[import-not-found, unused-ignore]
        except ImportError as e:
            raise ConfigError("error.autopilot.postgres_saver") from e
        # the saver reads rows as dicts
        pg = psycopg.connect(rest, autocommit=True, prepare_threshold=0, row_factory=dict_row)
        saver = PostgresSaver(pg)
        saver.setup()
        return saver
    raise ConfigError("error.autopilot.checkpointer", spec=spec)


def close_checkpointer(saver: Any) -> None:
    """Close the saver's connection (if it has one)."""
    conn = getattr(saver, "conn", None)
    close = getattr(conn, "close", None)
    if close is not None:
        close()
