"""The master's job cache: who a job targeted, each agent's return, known agents.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 09:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("job") as batch:
        batch.alter_column("target", existing_type=sa.String(length=255), type_=sa.Text(),
                           existing_nullable=True)
        batch.add_column(sa.Column("target_type", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("targeted", sa.JSON(none_as_null=True), nullable=True))
        batch.add_column(sa.Column("not_connected", sa.JSON(none_as_null=True), nullable=True))
        batch.add_column(sa.Column("user", sa.String(length=255), nullable=True))
    op.create_table(
        "job_return",
        sa.Column("jid", sa.String(length=20), nullable=False),
        sa.Column("agent_id", sa.String(length=255), nullable=False),
        sa.Column("return", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("retcode", sa.Integer(), nullable=False),
        sa.Column("success", sa.Boolean(), nullable=False),
        sa.Column("out", sa.String(length=64), nullable=True),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["jid"], ["job.jid"], name=op.f("fk_job_return_jid_job"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("jid", "agent_id", name=op.f("pk_job_return")),
    )
    op.create_table(
        "agent",
        sa.Column("id", sa.String(length=255), nullable=False),
        sa.Column("grains", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("first_seen", sa.DateTime(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("agent")
    op.drop_table("job_return")
    with op.batch_alter_table("job") as batch:
        batch.drop_column("user")
        batch.drop_column("not_connected")
        batch.drop_column("targeted")
        batch.drop_column("target_type")
        batch.alter_column("target", existing_type=sa.Text(), type_=sa.String(length=255),
                           existing_nullable=True)
