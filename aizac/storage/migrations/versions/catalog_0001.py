"""catalog: the projects of a PostgreSQL database (owner, name, epoch).

The first version under Alembic; embedded files made before it are adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: catalog_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "catalog_0001"
down_revision = None
branch_labels = ("catalog",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("epoch", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "name", name="projects_owner_name"),
    )


def downgrade() -> None:
    op.drop_table("projects")
