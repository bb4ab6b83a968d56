"""Alembic migrations of aizac's tables: one branch per concern (see aizac.storage.schema)."""
