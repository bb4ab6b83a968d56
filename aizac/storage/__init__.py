"""Where aizac keeps its rows: embedded SQLite files, or one PostgreSQL database.

:mod:`~aizac.storage.tables` defines every table once (SQLAlchemy Core), :mod:`~aizac.storage.
database` opens either engine, :mod:`~aizac.storage.schema` keeps their versions (Alembic),
:mod:`~aizac.storage.locks` serialises a project's multi-store steps across processes, and
:mod:`~aizac.storage.catalog` lists the projects of a PostgreSQL database.
"""
