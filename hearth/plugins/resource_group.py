"""OS::Heat::ResourceGroup: a nested stack of ``count`` identical members "0", "1", ...

The members' definition is ``resource_def`` with ``%index%`` (or
``index_var``) replaced by each member's name; the pure rules (names,
skip-list, templates, batches, attributes) are in :mod:`hearth.plugins._group`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, support
from hearth.engine.nested import children
from hearth.engine.nested.stack_resource import StackResource
from hearth.engine.scaling.members import Member, nested_template
from hearth.engine.states import CREATE, FAILED, UPDATE
from hearth.engine.template import function
from hearth.plugins._group import attributes as group_attributes
from hearth.plugins._group import batches, definitions, names
from hearth.plugins._waiting import Wait

Schema = properties.Schema


def _integer(description: str, minimum: int, default: int) -> Schema:
    return Schema(Schema.INTEGER, description, default=default,
                  constraints=[constraints.Range(min=minimum)])


def _pause(description: str) -> Schema:
    return Schema(Schema.NUMBER, description, default=0, constraints=[constraints.Range(min=0)])


class ResourceGroup(StackResource):
    """Creates one or more identically configured nested resources.

    Besides ``refs``, ``refs_map``, ``attributes`` and
    ``removed_rsrc_list``, ``resource.<index>`` is a member's id,
    ``resource.<index>.<attribute>`` a member's attribute, and any other
    name the list of that attribute over the members.  The index variable
    (``%index%``) in the members' properties is replaced by each member's
    index, e.g. ``name: my_server_%index%``.
    """

    support_status = support.SupportStatus(version="2014.1")

    PROPERTIES = (COUNT, INDEX_VAR, RESOURCE_DEF, REMOVAL_POLICIES, REMOVAL_POLICIES_MODE) = (
        "count", "index_var", "resource_def", "removal_policies", "removal_policies_mode")
    UPDATE_POLICIES = (ROLLING_UPDATE, BATCH_CREATE) = ("rolling_update", "batch_create")
    POLICY_KEYS = (MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME) = (
        "min_in_service", "max_batch_size", "pause_time")
    ATTRIBUTES = group_attributes.ATTRIBUTES
    REFS, REFS_MAP, ATTR_ATTRIBUTES, REMOVED_RSRC_LIST = ATTRIBUTES

    properties_schema = {
        COUNT: Schema(Schema.INTEGER, "The number of resources to create.", default=1,
                      constraints=[constraints.Range(min=0)], update_allowed=True),
        INDEX_VAR: Schema(
            Schema.STRING, "A variable that this resource will use to replace with the "
            "current index of a given resource in the group.",
            default=definitions.DEFAULT_INDEX_VAR, constraints=[constraints.Length(min=3)],
            support_status=support.SupportStatus(version="2014.2")),
        RESOURCE_DEF: Schema(
            Schema.MAP, "Resource definition for the resources in the group, as if it had "
            "been declared in the template itself.", required=True, update_allowed=True,
            schema={
                definitions.TYPE: Schema(Schema.STRING, "The type of the resources in the "
                                         "group.", required=True),
                definitions.PROPERTIES: Schema(Schema.MAP, "Property values for the "
                                               "resources in the group."),
                definitions.METADATA: Schema(
                    Schema.MAP, "Supplied metadata for the resources in the group.",
                    support_status=support.SupportStatus(version="5.0.0")),
            }),
        REMOVAL_POLICIES: Schema(
            Schema.LIST, "Policies for removal of resources on update.", default=[],
            update_allowed=True, support_status=support.SupportStatus(version="2015.1"),
            schema=Schema(Schema.MAP, "Policy to be processed when doing an update which "
                          "requires removal of specific resources.", schema={
                              names.RESOURCE_LIST: Schema(
                                  Schema.LIST, "List of resources to be removed (names in "
                                  "the nested stack, or references as in 'refs'); once "
                                  "removed, a name is never reused.", default=[])})),
        REMOVAL_POLICIES_MODE: Schema(
            Schema.STRING, 'How to handle changes to removal_policies on update: "append" '
            'adds to the stored list, "update" replaces it.', default=names.APPEND,
            constraints=[constraints.AllowedValues(names.REMOVAL_POLICY_MODES)],
            update_allowed=True, support_status=support.SupportStatus(version="10.0.0")),
    }

    attributes_schema = {
        REFS: attributes.Schema("A list of resource IDs for the resources in the group.",
                                type=attributes.Schema.LIST),
        REFS_MAP: attributes.Schema(
            "A map of resource names to IDs for the resources in the group.",
            type=attributes.Schema.MAP, support_status=support.SupportStatus(version="7.0.0")),
        ATTR_ATTRIBUTES: attributes.Schema(
            "A map of resource names to the specified attribute of each individual resource.",
            type=attributes.Schema.MAP, support_status=support.SupportStatus(version="2014.2")),
        REMOVED_RSRC_LIST: attributes.Schema(
            "A list of removed resource names.", type=attributes.Schema.LIST,
            support_status=support.SupportStatus(version="7.0.0")),
    }

    update_policy_schema = {
        ROLLING_UPDATE: Schema(Schema.MAP, schema={
            MIN_IN_SERVICE: _integer("The minimum number of resources in service while "
                                     "rolling updates are being executed.", 0, 0),
            MAX_BATCH_SIZE: _integer("The maximum number of resources to replace at once.",
                                     1, 1),
            PAUSE_TIME: _pause("The number of seconds to wait between batches of updates."),
        }, support_status=support.SupportStatus(version="5.0.0")),
        BATCH_CREATE: Schema(Schema.MAP, schema={
            MAX_BATCH_SIZE: _integer("The maximum number of resources to create at once.", 1,
                                     1),
            PAUSE_TIME: _pause("The number of seconds to wait between batches."),
        }, support_status=support.SupportStatus(version="5.0.0")),
    }

    def make_properties(self, definition: Any) -> properties.Properties:
        """Read the properties; while validating, unknown parameters read as None."""
        props = super().make_properties(definition)
        if not self._live():
            props.resolve = definitions.resolve_known
        return props

    # --- the group's shape ------------------------------------------------------------
    def get_size(self) -> int:
        """Return ``count`` (1 while it cannot be known yet, during validation)."""
        size = self.properties[self.COUNT]
        return 1 if size is None else size

    def update_policy(self) -> properties.Properties:
        """Return the definition's ``update_policy`` read through its schema."""
        resolver = function.resolve if self._live() else definitions.resolve_known
        return properties.Properties(
            self.update_policy_schema, getattr(self.t, "update_policy", None) or {},
            resolver=resolver, parent_name=[self.name, "update_policy"])

    def _live(self) -> bool:
        return children.is_live(self.stack)

    def stored_skiplist(self) -> list[str]:
        """Return the stored names of removed members."""
        if not self._live():
            return []
        return names.parse_skiplist(self.data_get().get(names.SKIPLIST_KEY))

    def _existing_names(self, include_failed: bool = True) -> set[str] | None:
        child = self.nested() if self.resource_id is not None else None
        if child is None:
            return None
        return {name for name, member in child.resources.items()
                if include_failed or member.status != FAILED}

    def _removed(self, props: properties.Properties, skiplist: Iterable[str]) -> set[str]:
        """Return the names the removal policies of ``props`` name."""
        return set(names.removed_names(props[self.REMOVAL_POLICIES], set(skiplist),
                                       self._existing_names(), self._refs_map))

    def _refs_map(self) -> dict[str, Any]:
        child = self.nested()
        if child is None:
            return {}
        return {name: member.FnGetRefId() for name, member in child.resources.items()}

    def skiplist(self) -> set[str]:
        """Return the names never given to a member (the stored ones, and new removals)."""
        stored = set(self.stored_skiplist())
        if self.resource_id is None:
            stored |= self._removed(self.properties, stored)
        return stored

    def store_skiplist(self) -> None:
        """Store the skip-list the current properties' removal policies lead to."""
        stored = self.stored_skiplist()
        new = names.next_skiplist(stored, self.properties[self.REMOVAL_POLICIES_MODE],
                                  self._removed(self.properties, stored))
        if new != set(stored):
            self.data_set(names.SKIPLIST_KEY, names.format_skiplist(new))

    def member_names(self, size: int | None = None) -> list[str]:
        """Return the names of the members (``size`` of them, default ``count``)."""
        return names.member_names(self.get_size() if size is None else size, self.skiplist())

    def _build(self, name: str) -> definitions.Definition:
        return definitions.member(self.properties[self.RESOURCE_DEF], name,
                                  self.properties[self.INDEX_VAR])

    def child_template(self) -> dict[str, Any]:
        """Return the nested template: every member (one only while validating)."""
        size = None if self._live() else min(self.get_size(), 1)
        return nested_template([(name, self._build(name)) for name in self.member_names(size)])

    def validate(self) -> None:
        """Validate properties, update policy and (count > 0) one member's definition."""
        super().validate()
        self.update_policy().validate()

    def validate_nested_stack(self) -> None:
        """Validate the members' definition unless ``count`` is 0 (a disabled group)."""
        if self.get_size():
            super().validate_nested_stack()

    # --- create and update ------------------------------------------------------------
    def handle_create(self) -> batches.BatchRun | None:
        """Create the members, in batches when ``batch_create`` says so."""
        self.store_skiplist()
        policy = self.update_policy()[self.BATCH_CREATE]
        if policy and self.get_size():
            return self._start_batches(0, policy[self.MAX_BATCH_SIZE], 0,
                                       policy[self.PAUSE_TIME])
        self.create_with_template(self.child_template(), {})
        return None

    def handle_create_continue(self) -> Any:
        """Continue the create another engine began: its nested stack's, when in one go.

        A create in batches (``batch_create``) grows the nested stack batch
        by batch, with its pauses; one whose nested stack exists cannot be
        told apart from a finished batch, so it fails, saying so.
        """
        if self.update_policy()[self.BATCH_CREATE] and self.get_size() \
                and self.nested() is not None:
            raise exception.ActionNotContinuable(
                "a create in batches (batch_create) cannot be continued", CREATE)
        return super().handle_create_continue()

    def check_create_complete(self, cookie: Any = None) -> bool | float:
        """Return whether the create (or its last batch) is complete."""
        if isinstance(cookie, batches.BatchRun):
            return self._step(cookie)
        return self._nested_done(CREATE)

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Any:
        """Resize and update the members; a new ``resource_def`` rolls when the policy says so."""
        self.t, self.properties = json_snippet, self.make_properties(json_snippet)
        self.store_skiplist()
        policy = self.update_policy()[self.ROLLING_UPDATE]
        if policy and self.RESOURCE_DEF in prop_diff:
            current = self._current_capacity()
            run = self._start_batches(current, policy[self.MAX_BATCH_SIZE],
                                      policy[self.MIN_IN_SERVICE], policy[self.PAUSE_TIME])
            if run is not None:
                return run
        return self.update_with_template(self.child_template(), {})

    def check_update_complete(self, cookie: Any = None) -> bool | float:
        """Return whether the update (or its last batch) is complete."""
        if isinstance(cookie, batches.BatchRun):
            return self._step(cookie)
        return self._nested_done(cookie or UPDATE)

    def _nested_done(self, action: str) -> bool:
        """Return whether the nested ``action`` is complete; then read the members afresh."""
        done = self.check_nested_complete(action)
        if done:
            self._nested = None  # the next read loads the stack as the action left it
        return done

    def _current_capacity(self) -> int:
        """Return the members there are now, skip-listed ones left out."""
        existing = self._existing_names() or set()
        alive = self._existing_names(include_failed=False) or set()
        return len(existing) - names.count_skipped(self.skiplist(), alive)

    def _start_batches(self, current: int, batch_size: int, min_in_service: int,
                       pause_time: float) -> batches.BatchRun | None:
        """Plan the batches (ValueError when the pauses reach the timeout) and start one."""
        plan = batches.plan(self.get_size(), current, batch_size, min_in_service, pause_time,
                            self.child_stacks().action_timeout())
        if not plan.batches:
            return None
        run = batches.BatchRun(plan)
        self._step(run)
        return run

    def _step(self, run: batches.BatchRun) -> bool | float:
        """Advance a batched action: poll its batch, pause, start the next; True at the end."""
        if run.action is not None:
            if not self._nested_done(run.action):
                return False
            run.action = None
            if run.plan.pauses_after(run.index):
                run.pause = Wait.start(self.stack, run.plan.pause_time)
        if run.pause is not None:
            left = run.pause.poll(self.stack)
            if left is not True:
                return left
            run.pause = None
        batch = run.next_batch()
        if batch is None:
            return True
        template = nested_template(self._batch_members(batch))
        run.action = self.update_with_template(template, {}, run.plan.timeout_mins)
        return False

    def _batch_members(self, batch: Any) -> list[Member]:
        """Return the members after ``batch`` (Heat's rolling rule)."""
        skiplist = self.skiplist()
        child = self.nested() if self.resource_id is not None else None
        existing: list[Member] = []
        if child is not None:
            data = child.template.data.get("resources") or {}
            order = sorted(child.resources.values(), key=_member_order)
            existing = [(member.name, dict(data[member.name])) for member in order
                        if member.name in data and member.name not in skiplist]
        return definitions.rolling_members(existing, self.member_names(batch.capacity),
                                           self.get_size(), batch.num_new, self._build)

    # --- attributes ---------------------------------------------------------------------
    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Accept every name: any other name is the list of that attribute over the members."""
        return True

    def FnGetAtt(self, name: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """Return an attribute read from the members (see the class docstring)."""
        if name == self.REMOVED_RSRC_LIST:
            return self.stored_skiplist()
        if name == attributes.SHOW_ATTR:
            return super().FnGetAtt(name, *path)
        return group_attributes.read(self.name, name, path, self.member_names(),
                                     group_attributes.NestedMembers(self))


def _member_order(member: Any) -> tuple[bool, int, str]:
    """Return the order members are replaced in: failed ones first, then by index."""
    index = int(member.name) if member.name.isdigit() else -1
    return (member.status != FAILED, index, member.name)


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::ResourceGroup": ResourceGroup}
