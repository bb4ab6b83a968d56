"""project: a project's store: meta, plot, episodes, beats, key-value slots, steps, images.

The first version under Alembic; embedded files made before it are adopted into it
(:mod:`aizac.storage.schema`).

Revision ID: project_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "project_0001"
down_revision = None
branch_labels = ("project",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "beats",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("episode", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("json", sa.Text(), nullable=False),
        sa.Column("new_characters", sa.Text(), server_default="[]", nullable=False),
        sa.Column("instruction", sa.Text(), server_default="", nullable=False),
        sa.Column("written", sa.Text(), server_default="[]", nullable=False),
        sa.Column("memory_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("summary", sa.Text(), server_default="", nullable=False),
        sa.Column("prose", sa.Text(), nullable=True),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.CheckConstraint("status IN ('draft', 'accepted', 'rejected')", name="beats_status"),
        sa.PrimaryKeyConstraint("project", "id", name="beats_pkey"),
    )
    op.create_index("beats_order", "beats", ["project", "status", "episode", "idx"], unique=False)
    op.create_index(
        "beats_slot",
        "beats",
        ["project", "episode", "idx"],
        unique=True,
        sqlite_where=sa.text("status != 'rejected'"),
        postgresql_where=sa.text("status != 'rejected'"),
    )
    op.create_table(
        "episodes",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.PrimaryKeyConstraint("project", "number", name="episodes_pkey"),
    )
    op.create_table(
        "images",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("episode", sa.Integer(), server_default="0", nullable=False),
        sa.Column("beat", sa.Integer(), server_default="0", nullable=False),
        sa.Column("beat_id", sa.Integer(), server_default="0", nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("negative", sa.Text(), server_default="", nullable=False),
        sa.Column("model", sa.Text(), nullable=False),
        sa.Column("billable", sa.Integer(), nullable=False),
        sa.Column("file", sa.Text(), nullable=False),
        sa.Column("media_type", sa.Text(), nullable=False),
        sa.Column("width", sa.Integer(), server_default="0", nullable=False),
        sa.Column("height", sa.Integer(), server_default="0", nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.Text(), nullable=False),
        sa.Column("sources", sa.Text(), server_default="[]", nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.CheckConstraint("kind IN ('cover', 'scene')", name="images_kind"),
        sa.PrimaryKeyConstraint("project", "id", name="images_pkey"),
    )
    op.create_table(
        "kv",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.PrimaryKeyConstraint("project", "key", name="kv_pkey"),
    )
    op.create_table(
        "meta",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("project", "key", name="meta_pkey"),
    )
    op.create_table(
        "plot",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Integer(), server_default="1", nullable=False),
        sa.Column("json", sa.Text(), nullable=False),
        sa.Column("tropes", sa.Text(), server_default="", nullable=False),
        sa.Column("memory_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.CheckConstraint("id = 1", name="plot_one"),
        sa.PrimaryKeyConstraint("project", "id", name="plot_pkey"),
    )
    op.create_table(
        "steps",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), server_default="{}", nullable=False),
        sa.PrimaryKeyConstraint("project", "id", name="steps_pkey"),
    )
    op.create_table(
        "image_places",
        sa.Column("project", sa.Text(), server_default="", nullable=False),
        sa.Column("slot", sa.Text(), nullable=False),
        sa.Column("image_id", sa.Text(), nullable=False),
        sa.Column("placed_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project", "image_id"], ["images.project", "images.id"], name="image_places_image"
        ),
        sa.PrimaryKeyConstraint("project", "slot", name="image_places_pkey"),
    )


def downgrade() -> None:
    op.drop_table("image_places")
    op.drop_table("steps")
    op.drop_table("plot")
    op.drop_table("meta")
    op.drop_table("kv")
    op.drop_table("images")
    op.drop_table("episodes")
    op.drop_index(
        "beats_slot",
        table_name="beats",
        sqlite_where=sa.text("status != 'rejected'"),
        postgresql_where=sa.text("status != 'rejected'"),
    )
    op.drop_index("beats_order", table_name="beats")
    op.drop_table("beats")
