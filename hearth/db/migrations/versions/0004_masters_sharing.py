"""Masters sharing one database: their heartbeats, a shared pki store, jobs they hand over.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("job") as batch:
        batch.add_column(sa.Column("master_id", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("batch", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("timeout", sa.Float(), nullable=True))
        batch.create_index(batch.f("ix_job_master_id"), ["master_id"], unique=False)
    op.create_table(
        "master",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=300), nullable=False),
        sa.Column("fingerprint", sa.String(length=128), nullable=False),
        sa.Column("pillar_digest", sa.String(length=64), nullable=True),
        sa.Column("beats", sa.BigInteger(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("beat_at", sa.DateTime(), nullable=False),
        sa.Column("stopped", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_master")),
    )
    op.create_table(
        "pki_entry",
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("category", "name", name=op.f("pk_pki_entry")),
    )
    revision_table = op.create_table(
        "pki_revision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pki_revision")),
    )
    op.bulk_insert(revision_table, [{"id": 1, "revision": 0}])


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("pki_revision")
    op.drop_table("pki_entry")
    op.drop_table("master")
    with op.batch_alter_table("job") as batch:
        batch.drop_index(batch.f("ix_job_master_id"))
        batch.drop_column("timeout")
        batch.drop_column("batch")
        batch.drop_column("master_id")
