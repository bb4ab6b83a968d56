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
        sa.Column("role", sa.Text(), server_default="user", nullable=False),
        sa.Column("disabled", sa.Integer(), server_default="0", nullable=False),
        sa.Column("language", sa.Text(), nullable=True),
        sa.Column("skeleton", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name_key", name="users_name_key"),
    )
    op.create_index("users_skeleton", "users", ["skeleton"], unique=False)
    op.create_table(
        "tokens",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("scope", sa.Text(), server_default="write", nullable=False),
        sa.Column("expires_at", sa.Double(), nullable=True),
        sa.Column("parent_id", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="tokens_user"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="tokens_token_hash"),
    )
    op.create_index("tokens_by_user", "tokens", ["user_id"], unique=False)
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="sessions_user"),
        sa.PrimaryKeyConstraint("id_hash"),
    )
    op.create_index("sessions_by_user", "sessions", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index("sessions_by_user", table_name="sessions")
    op.drop_table("sessions")
    op.drop_index("tokens_by_user", table_name="tokens")
    op.drop_table("tokens")
    op.drop_index("users_skeleton", table_name="users")
    op.drop_table("users")
