"""Every table aizac keeps, defined once for both engines (SQLAlchemy Core).

The same :class:`~sqlalchemy.Table` objects are created in an embedded SQLite file and in the
PostgreSQL database of several processes (``AIZAC_DATABASE_URL``). Each table belongs to one
*concern* (an Alembic branch): embedded, every concern of a project is a file of its own in the
project folder, as it always was (``project.sqlite3``, ``autopilot_runs.sqlite3``,
``continuity.sqlite``, ``memory/aizac-keys.sqlite3``, ``memory/aizac-commits.sqlite3``); on
PostgreSQL they all sit in one database.

Every row of a project carries the project's key in ``project`` — ``""`` in an embedded file
(the file is the project), the project's id (:data:`projects`) on PostgreSQL — and every query
filters by it, so one project never reads another's rows, whatever ids a caller sends.

Numbered rows (beats, steps, events, decisions, steering notes) are numbered per project:
their key is ``(project, id)`` and a new row takes the project's highest id plus one
(:func:`next_id`), inside a write the database serialises per project. So a beat keeps its id
when ``aizac db import`` moves it, and everything that names it (the undo tree, a picture's
slot, a step's detail) stays true.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    CheckConstraint,
    Column,
    Double,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
    func,
    select,
    text,
)

metadata = MetaData()


def _project() -> Column[str]:
    return Column("project", Text, nullable=False, server_default="")


def _number() -> Column[int]:
    return Column("id", Integer, nullable=False, autoincrement=False)


def next_id(table: Table, project: str) -> Any:
    """The next number of ``project``'s rows in ``table`` (a scalar subquery for an INSERT;
    safe because a project's writes are serialised)."""
    return select(func.coalesce(func.max(table.c.id), 0) + 1).where(
        table.c.project == project).scalar_subquery()


# --------------------------------------------------------------------------- catalog
projects = Table(
    "projects", metadata,
    Column("id", Text, primary_key=True),
    Column("owner", Text, nullable=False),  # a user id on `aizac serve`; "" for one writer
    Column("name", Text, nullable=False),
    Column("created_at", Double, nullable=False),
    # Bumped by every process that takes the project's step lock: one that sees it moved by
    # more than its own bump knows another process wrote, and reloads what it cached.
    Column("epoch", Integer, nullable=False, server_default="0"),
    UniqueConstraint("owner", "name", name="projects_owner_name"),
)
"""Projects on PostgreSQL (an embedded project is its folder; this table stays empty there)."""

# --------------------------------------------------------------------------- project
meta = Table(
    "meta", metadata,
    _project(),
    Column("key", Text, nullable=False),
    Column("value", Text, nullable=False),
    PrimaryKeyConstraint("project", "key", name="meta_pkey"),
)
plot = Table(
    "plot", metadata,
    _project(),
    Column("id", Integer, nullable=False, server_default="1"),
    Column("json", Text, nullable=False),
    Column("tropes", Text, nullable=False, server_default=""),
    Column("memory_ids", Text, nullable=False, server_default="[]"),
    Column("version", Integer, nullable=False, server_default="1"),
    Column("updated_at", Double, nullable=False),
    PrimaryKeyConstraint("project", "id", name="plot_pkey"),
    CheckConstraint("id = 1", name="plot_one"),
)
episodes = Table(
    "episodes", metadata,
    _project(),
    Column("number", Integer, nullable=False),
    Column("title", Text, nullable=False),
    Column("version", Integer, nullable=False, server_default="1"),
    PrimaryKeyConstraint("project", "number", name="episodes_pkey"),
)
beats = Table(
    "beats", metadata,
    _project(),
    _number(),
    Column("episode", Integer, nullable=False),
    Column("idx", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("json", Text, nullable=False),
    Column("new_characters", Text, nullable=False, server_default="[]"),
    Column("instruction", Text, nullable=False, server_default=""),
    Column("written", Text, nullable=False, server_default="[]"),
    Column("memory_ids", Text, nullable=False, server_default="[]"),
    Column("summary", Text, nullable=False, server_default=""),
    Column("prose", Text),
    Column("version", Integer, nullable=False, server_default="1"),
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    PrimaryKeyConstraint("project", "id", name="beats_pkey"),
    CheckConstraint("status IN ('draft', 'accepted', 'rejected')", name="beats_status"),
    Index("beats_slot", "project", "episode", "idx", unique=True,
          sqlite_where=text("status != 'rejected'"),
          postgresql_where=text("status != 'rejected'")),
    Index("beats_order", "project", "status", "episode", "idx"),
)
kv = Table(
    "kv", metadata,
    _project(),
    Column("key", Text, nullable=False),
    Column("value", Text, nullable=False),
    Column("version", Integer, nullable=False, server_default="1"),
    PrimaryKeyConstraint("project", "key", name="kv_pkey"),
)
steps = Table(
    "steps", metadata,
    _project(),
    _number(),
    Column("at", Double, nullable=False),
    Column("kind", Text, nullable=False),
    Column("detail", Text, nullable=False, server_default="{}"),
    PrimaryKeyConstraint("project", "id", name="steps_pkey"),
)
images = Table(
    "images", metadata,
    _project(),
    Column("id", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("episode", Integer, nullable=False, server_default="0"),
    Column("beat", Integer, nullable=False, server_default="0"),
    Column("beat_id", Integer, nullable=False, server_default="0"),
    Column("prompt", Text, nullable=False),
    Column("negative", Text, nullable=False, server_default=""),
    Column("model", Text, nullable=False),
    Column("billable", Integer, nullable=False),
    Column("file", Text, nullable=False),
    Column("media_type", Text, nullable=False),
    Column("width", Integer, nullable=False, server_default="0"),
    Column("height", Integer, nullable=False, server_default="0"),
    Column("bytes", Integer, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("sources", Text, nullable=False, server_default="[]"),
    Column("created_at", Double, nullable=False),
    PrimaryKeyConstraint("project", "id", name="images_pkey"),
    CheckConstraint("kind IN ('cover', 'scene')", name="images_kind"),
)
image_places = Table(
    "image_places", metadata,
    _project(),
    Column("slot", Text, nullable=False),
    Column("image_id", Text, nullable=False),
    Column("placed_at", Double, nullable=False),
    PrimaryKeyConstraint("project", "slot", name="image_places_pkey"),
    ForeignKeyConstraint(["project", "image_id"], ["images.project", "images.id"],
                         name="image_places_image"),
)

# ------------------------------------------------------------------------ autopilot runs
runs = Table(
    "runs", metadata,
    _project(),
    Column("id", Text, nullable=False),
    Column("created_at", Double),
    Column("updated_at", Double),
    Column("status", Text),
    Column("options", Text),
    Column("message", Text, server_default=""),
    Column("pause_requested", Integer, server_default="0"),
    PrimaryKeyConstraint("project", "id", name="runs_pkey"),
)
events = Table(
    "events", metadata,
    _project(),
    _number(),
    Column("run_id", Text),
    Column("at", Double),
    Column("episode", Integer),
    Column("node", Text),
    Column("kind", Text),
    Column("tokens", Integer),
    Column("seconds", Double),
    Column("detail", Text),
    Column("step", Integer),
    Column("seq", Integer, server_default="0"),
    PrimaryKeyConstraint("project", "id", name="events_pkey"),
    Index("events_run", "project", "run_id", "id"),
    # A node replayed after a kill runs at the same graph step: its rows are written once.
    Index("events_step", "project", "run_id", "step", "node", "kind", "seq", unique=True),
)
decisions = Table(
    "decisions", metadata,
    _project(),
    _number(),
    Column("run_id", Text),
    Column("at", Double),
    Column("episode", Integer),
    Column("node", Text),
    Column("decision", Text),
    Column("reason", Text),
    PrimaryKeyConstraint("project", "id", name="decisions_pkey"),
    Index("decisions_run", "project", "run_id", "id"),
)
steering = Table(
    "steering", metadata,
    _project(),
    _number(),
    Column("run_id", Text),
    Column("at", Double),
    Column("text", Text),
    Column("status", Text, server_default="new"),
    Column("actions", Text, server_default="[]"),
    Column("boundary", Integer),
    Column("memory_ids", Text, server_default="[]"),
    PrimaryKeyConstraint("project", "id", name="steering_pkey"),
    Index("steering_run", "project", "run_id", "id"),
)

# ------------------------------------------------------------------------ continuity
threads = Table(
    "threads", metadata,
    _project(),
    Column("memory_id", Text, nullable=False),
    Column("keyword", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("planted", Integer, nullable=False),
    Column("last_advanced", Integer, nullable=False),
    Column("due", Integer, nullable=False),
    Column("status", Text, nullable=False),
    PrimaryKeyConstraint("project", "memory_id", name="threads_pkey"),
)
secrets = Table(
    "secrets", metadata,
    _project(),
    Column("memory_id", Text, nullable=False),
    Column("keyword", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("created", Integer, nullable=False),
    PrimaryKeyConstraint("project", "memory_id", name="secrets_pkey"),
)
knowers = Table(
    "knowers", metadata,
    _project(),
    Column("memory_id", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("since", Integer, nullable=False),
    PrimaryKeyConstraint("project", "memory_id", "key", name="knowers_pkey"),
)

# ------------------------------------------------------------------ memory: keys, journal
keys = Table(
    "keys", metadata,
    _project(),
    Column("coll", Text, nullable=False),
    Column("id", Text, nullable=False),
    Column("tag", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("c1", Text, nullable=False),
    Column("c2", Text, nullable=False),
    Column("foreshadow", Integer, nullable=False),
    Column("live", Double, nullable=False),
    Column("slot", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("fp", Text, nullable=False),
    Column("aliases", Text, nullable=False),
    Column("chapter", Integer, nullable=False),
    Column("beat", Integer, nullable=False),
    Column("created", Integer, nullable=False),
    PrimaryKeyConstraint("project", "coll", "id", name="keys_pkey"),
    Index("keys_slot", "project", "coll", "slot", "live"),
    Index("keys_subject", "project", "coll", "subject", "tag", "live"),
    Index("keys_fp", "project", "coll", "fp", "live"),
    Index("keys_name", "project", "coll", "name", "tag", "live"),
    Index("keys_pair", "project", "coll", "c1", "c2", "live"),
    Index("keys_tag", "project", "coll", "tag", "live"),
    Index("keys_foreshadow", "project", "coll", "foreshadow", "live"),
    Index("keys_live", "project", "coll", "live"),
)
commits = Table(
    "commits", metadata,
    _project(),
    Column("coll", Text, nullable=False),
    Column("batch", Text, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("record", Text, nullable=False),
    PrimaryKeyConstraint("project", "coll", "batch", name="commits_pkey"),
    Index("commits_status", "project", "coll", "status"),
)

# -------------------------------------------------------------------------- accounts
users = Table(
    "users", metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("name_key", Text, nullable=False),  # NFKC, case-folded: one account per name
    Column("password_hash", Text, nullable=False),
    Column("created_at", Double, nullable=False),
    Column("role", Text, nullable=False, server_default="user"),  # user or admin
    Column("disabled", Integer, nullable=False, server_default="0"),
    Column("language", Text),  # of the server's messages; none: the browser's
    Column("skeleton", Text),  # the name's look-alike form (aizac.server.policy.skeleton)
    UniqueConstraint("name_key", name="users_name_key"),
    Index("users_skeleton", "skeleton"),
)
tokens = Table(
    "tokens", metadata,
    Column("id", Text, primary_key=True),
    Column("user_id", Text, ForeignKey("users.id", name="tokens_user"), nullable=False),
    Column("token_hash", Text, nullable=False),
    Column("label", Text, nullable=False),
    Column("created_at", Double, nullable=False),
    Column("scope", Text, nullable=False, server_default="write"),  # write or read
    Column("expires_at", Double),
    Column("parent_id", Text),  # the token it was minted from: revoked with it
    UniqueConstraint("token_hash", name="tokens_token_hash"),
    Index("tokens_by_user", "user_id"),
)
sessions = Table(
    "sessions", metadata,
    Column("id_hash", Text, primary_key=True),
    Column("user_id", Text, ForeignKey("users.id", name="sessions_user"), nullable=False),
    Column("created_at", Double, nullable=False),
    Index("sessions_by_user", "user_id"),
)
"""The server's accounts, API tokens and sessions (``aizac serve``): embedded, the file
``<data_dir>/server/accounts.sqlite3``; on PostgreSQL, beside the projects, so every replica
knows every user, token and session."""

CONCERNS: dict[str, tuple[Table, ...]] = {
    "catalog": (projects,),
    "project": (meta, plot, episodes, beats, kv, steps, images, image_places),
    "runs": (runs, events, decisions, steering),
    "continuity": (threads, secrets, knowers),
    "keys": (keys,),
    "journal": (commits,),
    "accounts": (users, tokens, sessions),
}
"""Tables by concern: an Alembic branch each, a file of its own in an embedded project."""

PROJECT_CONCERNS = ("project", "runs", "continuity", "keys", "journal")
"""The concerns that hold a project's rows (what ``aizac db import`` moves)."""


def concern_of(table: Table) -> str:
    """The concern ``table`` belongs to (pure)."""
    for concern, tables in CONCERNS.items():
        if table in tables:
            return concern
    raise KeyError(table.name)
