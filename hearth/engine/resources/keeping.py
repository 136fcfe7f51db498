"""A resource's part in keeping and moving stacks: adopt, snapshot deletion, restore.

Heat's plug-in contract, run by the engine:

- ``handle_adopt(resource_data)`` takes over an existing physical resource
  (ADOPT).  ``resource_data`` is the resource's entry of a stack's abandon
  data (``resource_id``, ``resource_data``, ``metadata``...).  A type without
  its own takes the id, the data and the metadata from the entry
  (:func:`default_adopt`).
- ``handle_snapshot()`` / ``check_snapshot_complete`` (the SNAPSHOT action,
  in :mod:`hearth.engine.resources.actions`) store what a restore needs in
  the resource's data (``data_set``); the stack's snapshot keeps each
  resource's entry with that data.
- ``handle_delete_snapshot(entry)`` removes what a snapshot made, when the
  snapshot is deleted.
- ``handle_restore(definition, entry)`` returns the definition the resource
  is restored to (:func:`restore_definition`).
- ``handle_snapshot_delete(state)`` + ``check_delete_complete`` are what
  ``deletion_policy: Snapshot`` runs instead of a delete; a type without
  ``handle_snapshot_delete`` refuses that policy at validation (as Heat:
  :func:`hearth.engine.resources.validation.check_deletion_policy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.secret_mask import SECRET_MASK
from hearth.engine.resources import actions as resource_actions
from hearth.engine.states import ADOPT, DELETE, UPDATE

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView
    from hearth.engine.scheduler import Task


def default_adopt(resource: ResourceView, resource_data: Mapping[str, Any] | None) -> None:
    """Adopt as Heat's base resource does: id, data and metadata from the entry."""
    entry = resource_data or {}
    resource_id = entry.get("resource_id")
    if not resource_id:
        # as Heat: a plain Exception, so the reason reads "Exception: resources.<name>: ..."
        raise exception.ResourceFailure(Exception("Resource ID was not provided."), resource)
    resource.resource_id_set(resource_id)
    data = entry.get("resource_data")
    if isinstance(data, Mapping):
        for key, value in data.items():
            if value != SECRET_MASK:  # a secret abandon masked: not the secret, not kept
                resource.data_set(key, value)
    if entry.get("metadata") is not None:
        resource.metadata_set(entry["metadata"])


def adopt_steps(resource: ResourceView, resource_data: Mapping[str, Any] | None) -> Task:
    """Call the plug-in's ``handle_adopt`` (or :func:`default_adopt`), then its check."""
    if getattr(resource, "handle_adopt", None) is not None:
        yield from resource_actions.plugin_steps(resource, ADOPT, resource_data)
        return
    default_adopt(resource, resource_data)
    yield from ()


def adopt(resource: ResourceView, resource_data: Mapping[str, Any] | None) -> Task:
    """Run ADOPT on a new resource: IN_PROGRESS, the adopt steps, COMPLETE or FAILED.

    As Heat, the resource's properties are stored as the adopt starts.
    """
    resource_actions.keep_properties(resource)
    yield from resource_actions.recorded(resource, ADOPT, adopt_steps(resource, resource_data))


def snapshot_delete_steps(resource: ResourceView, state: tuple[str, str]) -> Task:
    """What ``deletion_policy: Snapshot`` runs: ``handle_snapshot_delete(state)``.

    As Heat: the handler gets the state the resource had before its delete
    started (``state``), and ``check_delete_complete`` is polled on its
    answer; a type without the handler does nothing (validation refuses the
    policy for it).
    """
    if getattr(resource, "handle_snapshot_delete", None) is None:
        return
    yield from resource_actions.plugin_steps(resource, "snapshot_delete", state,
                                             check_action=DELETE)


def delete_snapshot(resource: ResourceView, entry: Mapping[str, Any] | None) -> Task:
    """Remove what a snapshot made for this resource (``handle_delete_snapshot(entry)``)."""
    if not entry:
        return
    yield from resource_actions.plugin_steps(resource, "delete_snapshot", entry)


def restore_definition(resource: ResourceView, definition: Any,
                       entry: Mapping[str, Any] | None) -> Any:
    """Return the definition ``resource`` is restored to (its ``handle_restore``'s answer).

    ``entry`` is the resource's entry in the snapshot (None when the
    snapshot has none); a type without ``handle_restore`` keeps ``definition``.
    """
    handle = getattr(resource, "handle_restore", None)
    if handle is None:
        return definition
    return handle(definition, entry)


def external_unchanged(resource: ResourceView, after: Any) -> bool:
    """Return whether an imported resource (``external_id``) is left as it is by an update.

    As Heat: changing (or adding, or removing) ``external_id`` is refused
    with NotSupported; an unchanged one means nothing to update.
    """
    before_id = resource_actions.resolved_field(resource.t, "external_id")
    after_id = resource_actions.resolved_field(after, "external_id")
    if before_id != after_id:
        raise exception.ResourceFailure(exception.NotSupported(
            feature=f"Update to property external_id of {resource.name} "
                    f"({resource.type_name})"), resource, UPDATE)
    return after_id is not None
