"""The resource plug-in contract: the :class:`Resource` base class.

A resource type is a subclass declaring ``properties_schema``,
``attributes_schema`` and ``support_status`` and implementing some of the
handlers the engine looks up by name (see :data:`HANDLER_NAMES`):
``handle_<action>()`` starts an action and returns a cookie;
``check_<action>_complete(cookie)`` is polled until it returns True.  A
missing handler is a no-op, a missing check means "complete at once".
Updates call ``handle_update(json_snippet, tmpl_diff, prop_diff)``; raising
:class:`~hearth.common.exception.UpdateReplace` asks for a replacement.

Running the life cycle belongs to the engine (``hearth.engine.resources.actions``);
the entry points here (:meth:`Resource.create`, ...) only delegate to it, so
a Heat plug-in author finds the names they know.

A resource sees its stack through the minimal
:class:`~hearth.engine.resources.stack_view.StackView` protocol.
"""

from __future__ import annotations

import base64
import functools
import json
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar, NamedTuple

from hearth.common import exception
from hearth.engine import attributes, properties, states, support
from hearth.engine.properties import Properties
from hearth.engine.resources import actions as resource_actions
from hearth.engine.resources.actions import HANDLER_NAMES
from hearth.engine.resources.stack_view import StackView
from hearth.engine.resources.stored_properties import comparable
from hearth.engine.template import function

UpdateReplace = exception.UpdateReplace

ACTIONS = (INIT, CREATE, DELETE, UPDATE, ROLLBACK, SUSPEND, RESUME, ADOPT, SNAPSHOT,
           CHECK) = states.ACTIONS
STATUSES = (IN_PROGRESS, FAILED, COMPLETE) = states.STATUSES

#: Longest physical resource name (as Heat).
MAX_PHYSICAL_NAME = 255

#: The data item of :meth:`Resource.progress_set` (the engine's own name for it).
PROGRESS_KEY = "progress"


@functools.cache
def keeps_progress(cls: type) -> bool:
    """Return whether a type continues an action another engine began (and so keeps progress)."""
    return any(callable(getattr(cls, f"handle_{action.lower()}_continue", None))
               for action in HANDLER_NAMES)


class ResourceState(NamedTuple):
    """A resource's current (action, status, reason)."""

    action: str
    status: str
    reason: str


def short_id(resource_uuid: str) -> str:
    """Return the 12-character id Heat derives from a version 4 UUID's random bits."""
    value = uuid.UUID(resource_uuid)
    if value.version != 4:
        raise ValueError(f"Invalid UUID version ({value.version})")
    raw = (value.time << 4).to_bytes(8, "big")
    return base64.b32encode(raw)[:12].decode("ascii").lower()


class Resource:
    """The base of every resource type (Heat's plug-in contract).

    ``definition`` is the template's ResourceDefinition (``type``,
    ``properties``, ``metadata``, ``deletion_policy``, ``update_policy``,
    ``external_id``, ``description``, ``line``); ``stack`` a :class:`StackView`.
    """

    properties_schema: ClassVar[dict[str, properties.Schema]] = {}
    attributes_schema: ClassVar[dict[str, attributes.Schema]] = {}
    update_policy_schema: ClassVar[dict[str, properties.Schema]] = {}
    support_status: ClassVar[support.SupportStatus] = support.SupportStatus()
    default_client_name: ClassVar[str | None] = None
    entity: ClassVar[str | None] = None
    #: the registered type name (set by the registry).
    resource_type: ClassVar[str | None] = None
    #: True when the type may hold values shown nowhere (see :meth:`secret_values`).
    keeps_secrets: ClassVar[bool] = False
    #: False when the handlers change nothing outside Hearth's database: the
    #: engine then need not wait for the IN_PROGRESS state to be committed
    #: before calling them (nothing outside can be left behind by a crash).
    acts_outside: ClassVar[bool] = True

    ACTIONS = ACTIONS
    STATUSES = STATUSES
    INIT, CREATE, DELETE, UPDATE, ROLLBACK, SUSPEND, RESUME, ADOPT, SNAPSHOT, CHECK = ACTIONS
    IN_PROGRESS, FAILED, COMPLETE = STATUSES

    def __init__(self, name: str, definition: Any, stack: StackView) -> None:
        self.name = name
        self.t = definition
        self.stack = stack
        self.uuid = str(uuid.uuid4())
        #: the id of its row (None until the stack first stores its state)
        self.db_id: int | None = None
        #: True while it continues the action a dead engine began (the plug-in's continue)
        self.continuing = False
        self.resource_id: str | None = None
        self.action, self.status, self.status_reason = INIT, COMPLETE, ""
        self.properties = self.make_properties(definition)
        self.attributes = attributes.Attributes(name, self.attributes_schema,
                                                self._resolve_any_attribute)
        self._metadata: Any = None
        #: when its row was made and its state last stored (None until stored)
        self.created_at: datetime | None = None
        self.stored_at: datetime | None = None
        #: the resolved properties its last create, adopt or update was given
        #: (:mod:`hearth.engine.resources.stored_properties`); None before any
        self.stored_properties: Any = None
        #: True while they are kept but not written yet (the next state change writes them)
        self.properties_unwritten = False

    # --- construction helpers -----------------------------------------------

    def make_properties(self, definition: Any) -> properties.Properties:
        """Return the Properties of ``definition`` read through this type's schema."""
        return properties.Properties(
            self.properties_schema, getattr(definition, "properties", None) or {},
            resolver=function.resolve, parent_name=[self.name, "properties"],
            context=self.stack.context)

    @property
    def properties(self) -> properties.Properties:
        """Return the properties (setting new ones forgets cached attribute values)."""
        return self._properties

    @properties.setter
    def properties(self, value: properties.Properties) -> None:
        self._properties = value
        if getattr(self, "attributes", None) is not None:
            self.attributes.reset()

    @property
    def type_name(self) -> str:
        """Return the type the template named (or the registered type)."""
        return getattr(self.t, "type", None) or self.resource_type or type(self).__name__

    def same_type(self, type_name: Any) -> bool:
        """Return whether a definition of type ``type_name`` keeps this resource's type.

        A different type is a replacement; a type naming the same
        implementation (two aliases of one plug-in in the environment's
        resource_registry, or of one provider template) is updated in place,
        as Heat does.
        """
        if type_name == self.type_name:
            return True
        registry = self.stack.registry
        if not isinstance(type_name, str) or registry is None:
            return False
        try:
            resolved = registry.get_class(type_name, self.stack.env, self.name,
                                          allow_hidden=True, files=self.stack.files)
        except exception.HearthException:
            return False
        return resolved is type(self)

    def same_implementation(self, other_class: type) -> bool:
        """Return whether ``other_class`` (a type's class in the new environment) is this one's.

        An update keeps a resource in place only when its new type is
        implemented by the same plug-in; a type name the environment now maps
        elsewhere is a replacement, as Heat does.
        """
        return other_class is type(self)

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Return whether ``get_attr`` may name ``name`` for this type."""
        return name in attributes.BASE_ATTRIBUTES or name in cls.attributes_schema

    @classmethod
    def attribute_names(cls) -> list[str]:
        """Return the names ``get_attr`` may name for this type (for "did you mean")."""
        return [*cls.attributes_schema, *attributes.BASE_ATTRIBUTES]

    # --- state (plain data the engine sets) --------------------------------

    @property
    def state(self) -> ResourceState:
        """Return (action, status, reason)."""
        return ResourceState(self.action, self.status, self.status_reason)

    def state_set(self, action: str, status: str, reason: str = "") -> None:
        """Record a new state (the engine checks transitions and writes events)."""
        self.action, self.status, self.status_reason = action, status, reason

    # --- persistence through the stack's store -----------------------------

    def resource_id_set(self, resource_id: Any) -> None:
        """Set and store the physical resource id."""
        self.resource_id = None if resource_id is None else str(resource_id)
        self.stack.store.set_resource_id(self, self.resource_id)

    def data_set(self, key: str, value: Any, redact: bool = False) -> None:
        """Store one item of per-resource data (``redact`` hides it from listings)."""
        self.stack.store.save_data(self, key, value, redact)

    def data_get(self) -> dict[str, Any]:
        """Return all stored per-resource data."""
        return self.stack.store.load_data(self)

    def data(self) -> dict[str, Any]:
        """Return all stored per-resource data (Heat's older name)."""
        return self.data_get()

    def data_delete(self, key: str) -> None:
        """Remove one item of per-resource data."""
        self.stack.store.delete_data(self, key)

    # --- progress: what an engine taking the action over reads ---------------

    def progress_set(self, progress: Mapping[str, Any]) -> None:
        """Store how far the current action got (a JSON object), for ``handle_<action>_continue``.

        It lives for one action: the engine removes it when the resource's
        next action starts, so what a continue method reads is this action's.
        Set in ``handle_<action>``, it is written before the engine polls.
        """
        self.data_set(PROGRESS_KEY, json.dumps(dict(progress)))

    def progress(self) -> dict[str, Any] | None:
        """Return the progress stored in the current action (None: none was stored)."""
        stored = self.data_get().get(PROGRESS_KEY)
        return None if stored is None else json.loads(stored)

    def secret_values(self) -> list[str]:
        """Return values of this resource that must be hidden like hidden parameters.

        Read by the stack only for types with ``keeps_secrets`` set.
        """
        return []

    def metadata_get(self) -> Any:
        """Return the metadata: as last set, else the template's (resolved)."""
        if self._metadata is None:
            self._metadata = function.resolve(getattr(self.t, "metadata", None) or {})
        return self._metadata

    def metadata_set(self, metadata: Any) -> None:
        """Replace and store the metadata."""
        self._metadata = metadata
        self.stack.store.save_metadata(self, metadata)

    # --- names and references ----------------------------------------------

    def physical_resource_name(self) -> str | None:
        """Return ``<stack>-<resource>-<short id>`` (None while INIT), at most 255 characters."""
        if self.action == INIT:
            return None
        suffix = f"-{short_id(self.uuid)}"
        name = f"{self.stack.name}-{self.name}"
        if len(name) + len(suffix) > MAX_PHYSICAL_NAME:
            name = name[len(name) + len(suffix) - MAX_PHYSICAL_NAME:].lstrip("-_.")
        return name + suffix

    def get_reference_id(self) -> str:
        """Return what ``get_resource`` gives: the physical id, or the name before one exists."""
        return str(self.resource_id) if self.resource_id is not None else self.name

    def FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        """Return the reference id (``get_resource`` / ``Ref``)."""
        return self.get_reference_id()

    def FnGetAtt(self, name: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """Return attribute ``name`` walked down ``path``; unknown names are template errors."""
        if name not in self.attributes:
            raise exception.InvalidTemplateAttribute.named(self.name, name, self.attributes)
        return self.attributes.get_path(name, path)

    def _resolve_any_attribute(self, name: str) -> Any:
        if name == attributes.SHOW_ATTR:
            return self._show_resource()
        return self._resolve_attribute(name)

    def _resolve_attribute(self, name: str) -> Any:
        """Return the value of attribute ``name`` (plug-ins override)."""
        return None

    def _show_resource(self) -> Any:
        """Return the ``show`` attribute: the physical object's details (plug-ins override)."""
        return None

    # --- validation ---------------------------------------------------------

    def validate(self) -> None:
        """Validate the properties and deletion policy; plug-ins extend this for their checks."""
        self.properties.validate()
        self.validate_deletion_policy()

    def validate_deletion_policy(self) -> None:
        """Refuse ``deletion_policy: Snapshot`` on a type without ``handle_snapshot_delete``.

        Heat's rule and text (a type replacing :meth:`validate`, as
        OS::Heat::None, is not checked); a policy that cannot be resolved
        yet is left to the template's own checks.
        """
        try:
            policy = function.resolve(getattr(self.t, "deletion_policy", None))
        except exception.HearthException:
            return
        if (isinstance(policy, str) and policy.capitalize() == "Snapshot"
                and not callable(getattr(self, "handle_snapshot_delete", None))):
            raise exception.StackValidationFailed(
                '"Snapshot" deletion policy not supported', path=[self.name, "deletion_policy"])

    # --- deciding between in-place update and replacement -------------------

    def frozen_definition(self) -> Any:
        """Return the definition with the properties stored by the last action (Heat's).

        What an update compares the new definition with: a property that
        reads another resource keeps the value it had then.  A resource with
        no stored properties (never acted on) gives its definition as it is.
        """
        if self.stored_properties is None:
            return self.t
        return self.t.freeze(properties=self.stored_properties.values)


    def needs_replace(self, after_props: Properties) -> bool:
        """Return whether the new properties force a replacement regardless of the diff."""
        return False

    def prepare_for_replace(self, after: Any = None) -> Any:
        """Make room for the replacement about to be created (Heat's hook; nothing by default).

        Called on the resource being replaced, before its replacement (of
        definition ``after``) is created.  A plug-in whose preparation takes
        time returns a cookie and defines
        ``check_prepare_for_replace_complete(cookie)``.
        """
        return None

    def needs_replace_failed(self) -> bool:
        """Return whether a FAILED resource is replaced rather than updated."""
        return True

    def needs_replace_with_prop_diff(self, changed_properties: set[str],
                                     after_props: Properties,
                                     before_props: Properties) -> bool:
        """Return whether these changed properties force a replacement."""
        return False

    def needs_replace_with_tmpl_diff(self, tmpl_diff: Mapping[str, Any]) -> bool:
        """Return whether a change outside the properties forces a replacement."""
        return False

    def _needs_update(self, after: Any, before: Any, after_props: Properties,
                      before_props: Properties, prev_resource: Any = None,
                      check_init_complete: bool = True) -> bool:
        """Return whether an in-place update is needed; raise UpdateReplace to replace.

        Replace when the resource failed (and :meth:`needs_replace_failed`),
        was never created or is deleted, or :meth:`needs_replace` says so.
        """
        replace_states = {(DELETE, COMPLETE), (CHECK, FAILED)}
        if check_init_complete:
            replace_states.add((INIT, COMPLETE))
        if ((self.status == FAILED and self.needs_replace_failed())
                or (self.action, self.status) in replace_states
                or self.needs_replace(after_props)):
            raise UpdateReplace(self.name)
        return definition_digest(before) != definition_digest(after)

    def update_diffs(self, after: Any, before: Any = None
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return (tmpl_diff, prop_diff) between ``before`` and ``after``, as Heat.

        ``before`` is the definition the resource has now (by default its
        :meth:`frozen_definition`).  Raises NotSupported when a changed
        property is immutable, UpdateReplace when the type asks for a
        replacement (:meth:`needs_replace_with_prop_diff`,
        :meth:`needs_replace_with_tmpl_diff`) or a changed property is not
        update_allowed.
        """
        before = self.frozen_definition() if before is None else before
        before_props = self.make_properties(before)
        after_props = self.make_properties(after)
        prop_diff = before_props.update_allowed_diff(after_props)
        immutable = before_props.immutable_keys(prop_diff)
        if immutable:
            raise exception.NotSupported(
                feature=f"Update to properties {', '.join(immutable)} of {self.name} "
                        f"({self.type_name})")
        before_digest = definition_digest(before)
        tmpl_diff = {key: value for key, value in definition_digest(after).items()
                     if key != "properties" and before_digest.get(key) != value}
        if ((prop_diff and self.needs_replace_with_prop_diff(set(prop_diff), after_props,
                                                               before_props))
                or self.needs_replace_with_tmpl_diff(tmpl_diff)):
            raise UpdateReplace(describe(self))
        if before_props.replacement_keys(prop_diff):
            raise UpdateReplace(self.name)
        return tmpl_diff, prop_diff

    # --- life-cycle entry points (run by the engine) ------------------------

    def _run(self, action: str, *args: Any) -> Any:
        return resource_actions.run(self, action, *args)

    def create(self) -> Any:
        """Create the resource (a task run by the engine's scheduler)."""
        return self._run(CREATE)

    def update(self, after: Any, before: Any = None, prev_resource: Any = None) -> Any:
        """Update the resource to definition ``after`` (in place or by UpdateReplace)."""
        return self._run(UPDATE, after, before, prev_resource)

    def suspend(self) -> Any:
        """Suspend the resource."""
        return self._run(SUSPEND)

    def resume(self) -> Any:
        """Resume the suspended resource."""
        return self._run(RESUME)

    def delete(self) -> Any:
        """Delete the resource (honouring its deletion policy)."""
        return self._run(DELETE)

    def snapshot(self) -> Any:
        """Snapshot the resource."""
        return self._run(SNAPSHOT)

    def check(self) -> Any:
        """Check the resource still exists and is healthy."""
        return self._run(CHECK)

    def handler(self, action: str) -> Callable[..., Any] | None:
        """Return the bound ``handle_<action>`` method, or None if the type has none."""
        return getattr(self, HANDLER_NAMES[action][0], None)

    def completion_check(self, action: str) -> Callable[..., bool] | None:
        """Return the bound ``check_<action>_complete`` method, or None."""
        return getattr(self, HANDLER_NAMES[action][1], None)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.action}_{self.status}>"


def definition_digest(definition: Any) -> dict[str, Any]:
    """Return the resolved, comparable parts of a resource definition.

    The properties as the database gives stored ones back (JSON: tuples as
    lists), so that stored and resolved values compare equal.
    """
    if definition is None:
        return {}
    keys = ("type", "properties", "metadata", "deletion_policy", "update_policy")
    digest = {key: function.resolve(getattr(definition, key, None)) for key in keys}
    digest["properties"] = comparable(digest["properties"])
    return digest


def describe(resource: Resource) -> str:
    """Return how Heat names a resource in messages.

    ``Class "name" [physical id] Stack "stack" [stack id]``, the physical id
    only once there is one.
    """
    physical = f" [{resource.resource_id}]" if resource.resource_id is not None else ""
    stack = resource.stack
    return (f'{type(resource).__name__} "{resource.name}"{physical} '
            f'Stack "{stack.name}" [{stack.id}]')


def now(stack: StackView) -> float:
    """Return the stack's clock reading."""
    return stack.clock()
