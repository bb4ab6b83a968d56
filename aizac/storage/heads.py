"""The schema version every concern's file is at (the head of its Alembic branch).

Kept apart from :mod:`aizac.storage.schema` (SQLAlchemy, Alembic) so that a look at an embedded
file that is already up to date (``aizac projects``) reads it with the standard library's
``sqlite3`` and imports neither (issue 41 goal 4)."""

from __future__ import annotations

VERSION_TABLE = "alembic_version"
HEADS = {
    "catalog": "catalog_0001", "project": "project_0001", "runs": "runs_0001",
    "continuity": "continuity_0001", "keys": "keys_0001", "journal": "journal_0001",
    "accounts": "accounts_0001",
}
"""The head revision of every branch, so opening a file that is up to date imports no Alembic
(``tests/storage/test_schema.py`` checks these against the migrations)."""
