"""runs: the autopilot's runs, events, decisions and steering notes.

The first version under Alembic; embedded files made before it are adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: runs_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "runs_0001"
down_revision = None
branch_labels = ("runs",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decisions",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("run_id", sa.Text(), nullable=True),
        sa.Column("at", sa.Double(), nullable=True),
        sa.Column("episode", sa.Integer(), nullable=True),
        sa.Column("node", sa.Text(), nullable=True),
        sa.Column("decision", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("project", "id", name="decisions_pkey"),
    )
    op.create_index("decisions_run", "decisions", ["project", "run_id", "id"], unique=False)
    op.create_table(
        "events",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("run_id", sa.Text(), nullable=True),
        sa.Column("at", sa.Double(), nullable=True),
        sa.Column("episode", sa.Integer(), nullable=True),
        sa.Column("node", sa.Text(), nullable=True),
        sa.Column("kind", sa.Text(), nullable=True),
        sa.Column("tokens", sa.Integer(), nullable=True),
        sa.Column("seconds", sa.Double(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("seq", sa.Integer(), server_default="0", nullable=True),
        sa.PrimaryKeyConstraint("project", "id", name="events_pkey"),
    )
    op.create_index("events_run", "events", ["project", "run_id", "id"], unique=False)
    op.create_index(
        "events_step", "events", ["project", "run_id", "step", "node", "kind", "seq"], unique=True
    )
    op.create_table(
        "runs",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=True),
        sa.Column("updated_at", sa.Double(), nullable=True),
        sa.Column("status", sa.Text(), nullable=True),
        sa.Column("options", sa.Text(), nullable=True),
        sa.Column("message", sa.Text(), server_default="", nullable=True),
        sa.Column("pause_requested", sa.Integer(), server_default="0", nullable=True),
        sa.PrimaryKeyConstraint("project", "id", name="runs_pkey"),
    )
    op.create_table(
        "steering",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("run_id", sa.Text(), nullable=True),
        sa.Column("at", sa.Double(), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("status", sa.Text(), server_default="new", nullable=True),
        sa.Column("actions", sa.Text(), server_default="[]", nullable=True),
        sa.Column("boundary", sa.Integer(), nullable=True),
        sa.Column("memory_ids", sa.Text(), server_default="[]", nullable=True),
        sa.PrimaryKeyConstraint("project", "id", name="steering_pkey"),
    )
    op.create_index("steering_run", "steering", ["project", "run_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("steering_run", table_name="steering")
    op.drop_table("steering")
    op.drop_table("runs")
    op.drop_index("events_step", table_name="events")
    op.drop_index("events_run", table_name="events")
    op.drop_table("events")
    op.drop_index("decisions_run", table_name="decisions")
    op.drop_table("decisions")
