"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21 18:52:13.153070
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""

    op.create_table(
        "engine",
        sa.Column("engine_id", sa.String(length=36), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("hostname", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("binary", sa.String(length=255), nullable=False),
        sa.Column("topic", sa.String(length=255), nullable=False),
        sa.Column("report_interval", sa.Double(), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("engine_id", name=op.f("pk_engine")),
    )
    op.create_table(
        "job",
        sa.Column("jid", sa.String(length=20), nullable=False),
        sa.Column("function", sa.String(length=255), nullable=False),
        sa.Column("args", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("kwargs", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("target", sa.String(length=255), nullable=True),
        sa.Column("retcode", sa.Integer(), nullable=True),
        sa.Column("return", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("success", sa.Boolean(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("jid", name=op.f("pk_job")),
    )
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_job_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "raw_template",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("template", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("files", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("environment", sa.JSON(none_as_null=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_raw_template")),
    )
    op.create_table(
        "stack_lock",
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("engine_id", sa.String(length=36), nullable=False),
        sa.Column("acquired_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("stack_id", name=op.f("pk_stack_lock")),
    )
    with op.batch_alter_table("stack_lock", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stack_lock_engine_id"), ["engine_id"], unique=False)

    op.create_table(
        "token",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("project_id", sa.String(length=256), nullable=False),
        sa.Column("user", sa.String(length=256), nullable=False),
        sa.Column("roles", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_token")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_token_token_hash")),
    )
    op.create_table(
        "stack",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("raw_template_id", sa.Integer(), nullable=False),
        sa.Column("prev_raw_template_id", sa.Integer(), nullable=True),
        sa.Column("project_id", sa.String(length=256), nullable=False),
        sa.Column("username", sa.String(length=256), nullable=True),
        sa.Column("owner_id", sa.String(length=36), nullable=True),
        sa.Column("parent_resource_name", sa.String(length=255), nullable=True),
        sa.Column("nested_depth", sa.Integer(), nullable=False),
        sa.Column("timeout_mins", sa.Integer(), nullable=True),
        sa.Column("disable_rollback", sa.Boolean(), nullable=False),
        sa.Column("tags", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("action", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=255), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("backup", sa.Boolean(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["prev_raw_template_id"],
            ["raw_template.id"],
            name=op.f("fk_stack_prev_raw_template_id_raw_template"),
        ),
        sa.ForeignKeyConstraint(
            ["raw_template_id"],
            ["raw_template.id"],
            name=op.f("fk_stack_raw_template_id_raw_template"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stack")),
    )
    with op.batch_alter_table("stack", schema=None) as batch_op:
        batch_op.create_index("ix_stack_created_at", ["created_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_stack_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index("ix_stack_status", ["status", "action"], unique=False)
        batch_op.create_index(
            "uq_stack_project_name_live",
            ["project_id", "name"],
            unique=True,
            sqlite_where=sa.text("deleted_at IS NULL"),
            postgresql_where=sa.text("deleted_at IS NULL"),
        )

    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("resource_name", sa.String(length=255), nullable=True),
        sa.Column("physical_resource_id", sa.String(length=255), nullable=True),
        sa.Column("resource_action", sa.String(length=255), nullable=True),
        sa.Column("resource_status", sa.String(length=255), nullable=True),
        sa.Column("resource_status_reason", sa.Text(), nullable=True),
        sa.Column("resource_type", sa.String(length=255), nullable=True),
        sa.Column("resource_properties", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], name=op.f("fk_event_stack_id_stack")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event")),
        sa.UniqueConstraint("uuid", name=op.f("uq_event_uuid")),
    )
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.create_index("ix_event_stack_id", ["stack_id", "id"], unique=False)

    op.create_table(
        "resource",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("type", sa.String(length=255), nullable=False),
        sa.Column("physical_resource_id", sa.String(length=255), nullable=True),
        sa.Column("metadata", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("properties_data", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("attr_data", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("action", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=255), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("requires", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("replaces", sa.Integer(), nullable=True),
        sa.Column("replaced_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_resource_stack_id_stack")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource")),
        sa.UniqueConstraint("uuid", name=op.f("uq_resource_uuid")),
    )
    with op.batch_alter_table("resource", schema=None) as batch_op:
        batch_op.create_index("ix_resource_physical_id", ["physical_resource_id"], unique=False)
        batch_op.create_index("ix_resource_stack_name", ["stack_id", "name"], unique=False)

    op.create_table(
        "snapshot",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("action", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=255), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_snapshot_stack_id_stack")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshot")),
    )
    with op.batch_alter_table("snapshot", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_snapshot_stack_id"), ["stack_id"], unique=False)

    op.create_table(
        "stack_tag",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("stack_id", sa.String(length=36), nullable=False),
        sa.Column("tag", sa.String(length=80), nullable=False),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name=op.f("fk_stack_tag_stack_id_stack"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stack_tag")),
    )
    with op.batch_alter_table("stack_tag", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stack_tag_stack_id"), ["stack_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_stack_tag_tag"), ["tag"], unique=False)

    op.create_table(
        "resource_data",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("resource_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.Text(), nullable=True),
        sa.Column("redact", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["resource.id"],
            name=op.f("fk_resource_data_resource_id_resource"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_data")),
    )
    with op.batch_alter_table("resource_data", schema=None) as batch_op:
        batch_op.create_index("uq_resource_data_resource_key", ["resource_id", "key"], unique=True)


def downgrade() -> None:
    """Revert this revision."""

    with op.batch_alter_table("resource_data", schema=None) as batch_op:
        batch_op.drop_index("uq_resource_data_resource_key")

    op.drop_table("resource_data")
    with op.batch_alter_table("stack_tag", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stack_tag_tag"))
        batch_op.drop_index(batch_op.f("ix_stack_tag_stack_id"))

    op.drop_table("stack_tag")
    with op.batch_alter_table("snapshot", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_snapshot_stack_id"))

    op.drop_table("snapshot")
    with op.batch_alter_table("resource", schema=None) as batch_op:
        batch_op.drop_index("ix_resource_stack_name")
        batch_op.drop_index("ix_resource_physical_id")

    op.drop_table("resource")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_index("ix_event_stack_id")

    op.drop_table("event")
    with op.batch_alter_table("stack", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_stack_project_name_live",
            sqlite_where=sa.text("deleted_at IS NULL"),
            postgresql_where=sa.text("deleted_at IS NULL"),
        )
        batch_op.drop_index("ix_stack_status")
        batch_op.drop_index(batch_op.f("ix_stack_owner_id"))
        batch_op.drop_index("ix_stack_created_at")

    op.drop_table("stack")
    op.drop_table("token")
    with op.batch_alter_table("stack_lock", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stack_lock_engine_id"))

    op.drop_table("stack_lock")
    op.drop_table("raw_template")
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_job_expires_at"))

    op.drop_table("job")
    op.drop_table("engine")
