"""The definition of a resource a stopped update left behind (a replaced original).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 14:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("resource") as batch:
        batch.add_column(sa.Column("definition", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("resource") as batch:
        batch.drop_column("definition")
