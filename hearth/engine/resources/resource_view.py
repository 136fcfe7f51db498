"""What the resource actions read and call of a resource: the :class:`ResourceView` protocol.

:class:`hearth.engine.resource.Resource` is one; it sits in the layer above
the actions it delegates to (:mod:`hearth.engine.resources.actions`, the
signals, the stored properties...), which therefore name it through this
protocol instead of importing it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hearth.engine.attributes import Attributes
    from hearth.engine.properties import Properties, Schema
    from hearth.engine.resources.stack_view import StackView


class ResourceView(Protocol):
    """A resource as the engine drives it: its identity, state, stored values and hooks.

    ``t`` is its definition (a
    :class:`~hearth.engine.template.resource_definition.ResourceDefinition`);
    ``action``, ``status`` and ``status_reason`` its state, which the actions
    set; ``continuing`` is True while it continues what a dead engine began.
    """

    name: str
    uuid: str
    t: Any
    stack: StackView
    db_id: int | None
    resource_id: str | None
    action: str
    status: str
    status_reason: str
    continuing: bool
    stored_properties: Any
    properties_unwritten: bool
    stored_at: datetime | None
    attributes: Attributes

    @property
    def properties(self) -> Properties:
        """Return the properties read through its type's schema."""

    @properties.setter
    def properties(self, value: Properties) -> None:
        """Set the properties (an update takes the new ones)."""

    @property
    def type_name(self) -> str:
        """Return the type the template named."""

    @property
    def acts_outside(self) -> bool:
        """Return whether its handlers change anything outside Hearth's database."""

    @property
    def properties_schema(self) -> dict[str, Schema]:
        """Return its type's property schemas."""

    def make_properties(self, definition: Any) -> Properties:
        """Return the Properties of ``definition`` read through its type's schema."""

    def validate(self) -> None:
        """Validate the properties (StackValidationFailed, located)."""

    def same_type(self, type_name: Any) -> bool:
        """Return whether a definition of ``type_name`` keeps its type (else: replaced)."""

    def frozen_definition(self) -> Any:
        """Return the definition with the properties its last action stored."""

    def update_diffs(self, after: Any, before: Any = None
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return (tmpl_diff, prop_diff) between ``before`` and ``after``."""

    def _needs_update(self, after: Any, before: Any, after_props: Properties,
                      before_props: Properties, prev_resource: Any = None,
                      check_init_complete: bool = True) -> bool:
        """Return whether an in-place update is needed (UpdateReplace: replace it)."""

    def prepare_for_replace(self, after: Any = None) -> Any:
        """Make room for its replacement (a cookie when that takes time)."""

    def resource_id_set(self, resource_id: Any) -> None:
        """Set and store the physical id."""

    def data_set(self, key: str, value: Any, redact: bool = False) -> None:
        """Store one data item."""

    def data_delete(self, key: str) -> None:
        """Remove one data item."""

    def metadata_set(self, metadata: Any) -> None:
        """Store the metadata."""

    def FnGetAtt(self, name: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """Return the value of attribute ``name`` (and ``path`` inside it)."""

    def handler(self, action: str) -> Callable[..., Any] | None:
        """Return the plug-in's ``handle_<action>``, if any."""
