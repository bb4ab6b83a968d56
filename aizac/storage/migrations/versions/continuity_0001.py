"""continuity: the continuity books: foreshadowing threads, secrets and who knows them.

The first version under Alembic; embedded files made before it are adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: continuity_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "continuity_0001"
down_revision = None
branch_labels = ("continuity",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "knowers",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("memory_id", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("since", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("project", "memory_id", "key", name="knowers_pkey"),
    )
    op.create_table(
        "secrets",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("memory_id", sa.Text(), nullable=False),
        sa.Column("keyword", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("project", "memory_id", name="secrets_pkey"),
    )
    op.create_table(
        "threads",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("memory_id", sa.Text(), nullable=False),
        sa.Column("keyword", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("planted", sa.Integer(), nullable=False),
        sa.Column("last_advanced", sa.Integer(), nullable=False),
        sa.Column("due", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("project", "memory_id", name="threads_pkey"),
    )


def downgrade() -> None:
    op.drop_table("threads")
    op.drop_table("secrets")
    op.drop_table("knowers")
