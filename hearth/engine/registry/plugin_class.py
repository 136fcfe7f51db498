"""What the registry reads of a resource plug-in class: :class:`PluginClass`.

Every resource type is a subclass of :class:`hearth.engine.resource.Resource`,
which declares these class attributes; the registry sits below that class's
layer, so it names the attributes it reads (its schemas, support status and
registered name) through this protocol instead of importing the class.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from hearth.engine import attributes, properties, support


class PluginClass(Protocol):
    """The class attributes of a resource type that describe it (Heat's plug-in contract)."""

    properties_schema: ClassVar[dict[str, properties.Schema]]
    attributes_schema: ClassVar[dict[str, attributes.Schema]]
    support_status: ClassVar[support.SupportStatus]
    #: the registered type name (set by the registry when the class names none)
    resource_type: ClassVar[str | None]
