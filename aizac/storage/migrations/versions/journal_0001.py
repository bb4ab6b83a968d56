"""journal: the memory's commit journal.

The first version under Alembic; embedded files made before it are adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: journal_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "journal_0001"
down_revision = None
branch_labels = ("journal",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "commits",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("coll", sa.Text(), nullable=False),
        sa.Column("batch", sa.Text(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("project", "coll", "batch", name="commits_pkey"),
    )
    op.create_index("commits_status", "commits", ["project", "coll", "status"], unique=False)


def downgrade() -> None:
    op.drop_index("commits_status", table_name="commits")
    op.drop_table("commits")
