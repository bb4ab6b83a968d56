"""accounts: the server's users, API tokens and sessions.

The first version under Alembic; an ``accounts.sqlite3`` made before it is adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: accounts_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "accounts_0001"
down_revision = None
branch_labels = ("accounts",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name_key", name="users_name_key"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="tokens_user"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="tokens_token_hash"),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="sessions_user"),
        sa.PrimaryKeyConstraint("id_hash"),
    )


def downgrade() -> None:
    op.drop_table("sessions")
    op.drop_table("tokens")
    op.drop_table("users")
