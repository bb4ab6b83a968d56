"""keys: the memory's exact-key index.

The first version under Alembic; embedded files made before it are adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: keys_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "keys_0001"
down_revision = None
branch_labels = ("keys",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "keys",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("coll", sa.Text(), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("tag", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("c1", sa.Text(), nullable=False),
        sa.Column("c2", sa.Text(), nullable=False),
        sa.Column("foreshadow", sa.Integer(), nullable=False),
        sa.Column("live", sa.Double(), nullable=False),
        sa.Column("slot", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("fp", sa.Text(), nullable=False),
        sa.Column("aliases", sa.Text(), nullable=False),
        sa.Column("chapter", sa.Integer(), nullable=False),
        sa.Column("beat", sa.Integer(), nullable=False),
        sa.Column("created", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("project", "coll", "id", name="keys_pkey"),
    )
    op.create_index(
        "keys_foreshadow", "keys", ["project", "coll", "foreshadow", "live"], unique=False
    )
    op.create_index("keys_fp", "keys", ["project", "coll", "fp", "live"], unique=False)
    op.create_index("keys_live", "keys", ["project", "coll", "live"], unique=False)
    op.create_index("keys_name", "keys", ["project", "coll", "name", "tag", "live"], unique=False)
    op.create_index("keys_pair", "keys", ["project", "coll", "c1", "c2", "live"], unique=False)
    op.create_index("keys_slot", "keys", ["project", "coll", "slot", "live"], unique=False)
    op.create_index(
        "keys_subject", "keys", ["project", "coll", "subject", "tag", "live"], unique=False
    )
    op.create_index("keys_tag", "keys", ["project", "coll", "tag", "live"], unique=False)


def downgrade() -> None:
    op.drop_index("keys_tag", table_name="keys")
    op.drop_index("keys_subject", table_name="keys")
    op.drop_index("keys_slot", table_name="keys")
    op.drop_index("keys_pair", table_name="keys")
    op.drop_index("keys_name", table_name="keys")
    op.drop_index("keys_live", table_name="keys")
    op.drop_index("keys_fp", table_name="keys")
    op.drop_index("keys_foreshadow", table_name="keys")
    op.drop_table("keys")
