"""Small builders shared by the db API tests."""

from __future__ import annotations

from datetime import datetime, timedelta

from hearth.db import api

BASE_TIME = datetime(2024, 1, 1, 12, 0, 0)


def make_stack(db, name="stack", project_id="p1", minutes=0, **values):
    """Create a stack (and its template) created ``minutes`` after BASE_TIME."""
    template = api.raw_template_create(db, {"heat_template_version": "2021-04-16"})
    return api.stack_create(db, {"name": name, "raw_template_id": template.id,
                                 "project_id": project_id,
                                 "created_at": BASE_TIME + timedelta(minutes=minutes),
                                 **values})


def make_resource(db, stack, name="server", **values):
    """Create a resource of ``stack``."""
    return api.resource_create(db, {"name": name, "stack_id": stack.id,
                                    "type": "OS::Heat::None", **values})
