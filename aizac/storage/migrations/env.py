"""Alembic's environment for aizac: always run on the connection the caller passes in
(``aizac db upgrade``, or an embedded file being opened): see :mod:`aizac.storage.schema`."""

from __future__ import annotations

from alembic import context

from aizac.storage.schema import ours
from aizac.storage.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - aizac always passes its connection
    raise RuntimeError("aizac's migrations run through `aizac db upgrade`, not the alembic CLI")
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters by copying a table
    compare_type=True,
    include_name=ours,  # the LangGraph saver's tables share the server database
)
with context.begin_transaction():
    context.run_migrations()
