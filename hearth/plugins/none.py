"""OS::Heat::None: a placeholder that accepts anything and does nothing."""

from __future__ import annotations

import uuid
from typing import Any

from hearth.engine import resource, support


class NoneResource(resource.Resource):
    """Enables easily disabling certain resources via the resource_registry.

    It does nothing, but can stub out any other resource type because it
    accepts any properties and returns any attribute (as None).  It is never
    updated or replaced, whatever the stubbed resource's properties change.
    """

    support_status = support.SupportStatus(version="5.0.0")
    IS_PLACEHOLDER = "is_placeholder"
    #: its handles change nothing outside the database (its IN_PROGRESS need not be
    #: committed before they run: hearth.engine.stacks.stack.Stack.record_resource_state)
    acts_outside = False

    def make_properties(self, definition: Any) -> Any:
        """Read no property at all: every key is accepted."""
        return super().make_properties(None)

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Accept every attribute name."""
        return True

    def validate(self) -> None:
        """Accept any properties."""

    def FnGetAtt(self, name: str, *path: Any) -> None:  # noqa: N802 - Heat's name
        """Return None for any attribute."""
        return None

    def _needs_update(self, after: Any, before: Any, after_props: Any, before_props: Any,
                      prev_resource: Any = None, check_init_complete: bool = True) -> bool:
        """Never update and never replace."""
        return False

    def update_diffs(self, after: Any, before: Any = None
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Report no differences: nothing is ever replaced."""
        return {}, {}

    def handle_create(self) -> None:
        """Set a random uuid as the resource id."""
        self.resource_id_set(str(uuid.uuid4()))
        self.data_set(self.IS_PLACEHOLDER, "True")

    def handle_delete(self) -> str | None:
        """Nothing to delete."""
        return self.resource_id


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::None": NoneResource}
