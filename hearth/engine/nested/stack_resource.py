"""StackResource: a resource whose physical resource is a stack of this engine.

A subclass says what its nested stack is (:meth:`StackResource.child_template`,
:meth:`~StackResource.child_params`, :meth:`~StackResource.child_files`);
the base validates that template with the parent's, creates, updates and
deletes the child (:meth:`~StackResource.create_with_template`,
:meth:`~StackResource.update_with_template`,
:meth:`~StackResource.delete_nested`), and its default handlers run every
action (create, update, delete, suspend, resume, check, snapshot) on the
child stack, each polled by :meth:`~StackResource.check_nested_complete`.
A cancelled or timed-out parent walk cancels the child's walk
(``handle_<action>_cancel``).

The nested stack's id is the resource's physical id and its reference
(``get_resource``); ``get_attr`` reaches the child's outputs
(:meth:`~StackResource.get_output`) and, through ``resource.<name>`` and
``resource.<name>.<attr>``, its members.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.engine import resource
from hearth.engine.nested import children
from hearth.engine.stacks import outputs
from hearth.engine.states import (
    ADOPT,
    CHECK,
    COMPLETE,
    CREATE,
    DELETE,
    FAILED,
    IN_PROGRESS,
    INIT,
    RESUME,
    SNAPSHOT,
    SUSPEND,
    UPDATE,
)

if TYPE_CHECKING:
    from hearth.engine.nested.runtime import ChildRun, ChildStacks
    from hearth.engine.resources.stack_view import StackView
    from hearth.engine.stacks.stack import Stack

#: The ``get_attr`` prefix that reaches a member of the nested stack.
MEMBER_PREFIX = "resource."


class StackResource(resource.Resource):
    """A resource whose physical resource is a stack of this engine (a nested stack)."""

    def __init__(self, name: str, definition: Any, stack: StackView) -> None:
        super().__init__(name, definition, stack)
        self._nested: Stack | None = None
        self._child_run: ChildRun | None = None
        self._child_stacks: ChildStacks | None = None

    # --- what a subclass provides -------------------------------------------------
    def child_template(self) -> Any:
        """Return the HOT template data of the nested stack."""
        raise NotImplementedError(f"{type(self).__name__} gives no child template")

    def child_params(self) -> dict[str, Any]:
        """Return the nested stack's parameter values."""
        return {}

    def child_files(self) -> dict[str, str]:
        """Return the nested stack's files map (the parent stack's)."""
        return dict(self.stack.files or {})

    def child_template_name(self) -> str:
        """Return the name the nested template's errors are reported under."""
        return f"{self.name} (nested template)"

    def child_removed_type(self) -> str | None:
        """Return a registry mapping the child's environment leaves out (None: none)."""
        return None

    # --- validation ----------------------------------------------------------------
    def validate(self) -> None:
        """Validate the properties, then (while the parent is validated) the nested template."""
        super().validate()
        if not children.is_live(self.stack):
            self.validate_nested_stack()

    def validate_nested_stack(self) -> None:
        """Validate the child template with the parent's rules; errors name this resource."""
        try:
            template = self.child_template()
            if template is None:  # built from values known only at run time
                return
            children.validate_child(self, template, self.child_params())
        except exception.StackValidationFailed as error:
            raise error.prefixed(self.name) from None
        except exception.HearthException as error:
            raise exception.StackValidationFailed(str(error), path=[self.name]) from None

    # --- the nested stack -------------------------------------------------------------
    def child_stacks(self) -> ChildStacks:
        """Return what stores, loads and runs the nested stack: the run-time half.

        :mod:`hearth.engine.nested.runtime` (the database and the green
        threads) is loaded here, when a nested stack first acts, and nowhere
        else in the plug-ins.
        """
        if self._child_stacks is None:
            # template-validate loads every plug-in, and needs neither the database nor the
            # green threads: nested stacks reach both through this one module, when one acts
            # lazy: eventlet, sqlalchemy: the run-time half of nested stacks, once one acts
            from hearth.engine.nested.runtime import ChildStacks
            self._child_stacks = ChildStacks(self)
        return self._child_stacks

    def nested(self) -> Stack | None:
        """Return the nested Stack with its stored states (None before it exists)."""
        if self._nested is None and children.is_live(self.stack):
            self._nested = self.child_stacks().load()
        return self._nested

    def _start(self, child: Stack, run: ChildRun) -> None:
        self._nested = child
        self._child_run = run

    def _wait_child(self) -> None:
        if self._child_run is not None:
            self._child_run.wait()

    def create_with_template(self, template: Any, params: Mapping[str, Any] | None = None,
                             timeout_mins: int | None = None) -> None:
        """Validate and store the nested stack, then start its CREATE; return at once."""
        runtime = self.child_stacks()
        child = runtime.create(template, self.child_params() if params is None else params,
                               timeout_mins)
        self.resource_id_set(child.id)
        self._start(child, runtime.run(child, CREATE))

    def update_with_template(self, template: Any, params: Mapping[str, Any] | None = None,
                             timeout_mins: int | None = None) -> str:
        """Start the nested stack's UPDATE to ``template``; return the action to wait for.

        With no nested stack yet (its create failed early) the stack is
        created instead (the action returned is then CREATE).
        """
        params = self.child_params() if params is None else params
        self._wait_child()
        child = self.nested()
        if child is None:
            self.create_with_template(template, params, timeout_mins)
            return CREATE
        runtime = self.child_stacks()
        raw_id, target = runtime.update_target(child, template, params)
        self._start(child, runtime.run_update(child, raw_id, target, timeout_mins))
        return UPDATE

    def delete_nested(self) -> None:
        """Start the nested stack's DELETE (nothing when there is none)."""
        self._wait_child()
        child = self.nested()
        if child is None:
            self._child_run = None
            return
        self._start(child, self.child_stacks().run(child, DELETE))

    def check_nested_complete(self, action: str) -> bool:
        """Return True once the nested ``action`` is COMPLETE; raise when it FAILED."""
        run = self._child_run
        if run is not None and not run.done:
            return False
        child = self._nested
        if child is None:
            if action == DELETE:
                return True
            raise exception.NestedStackFailure(f"{self.name} has no nested stack", action)
        if child.status == FAILED:
            raise exception.NestedStackFailure(child.row.status_reason, action)
        if (child.action, child.status) != (action, COMPLETE):
            raise exception.NestedStackFailure(
                f"Nested stack {child.name} is {child.action}_{child.status}", action)
        return True

    def cancel_nested(self) -> None:
        """Stop the nested stack's running action (the parent's walk was cancelled)."""
        if self._child_run is not None and not self._child_run.done:
            self._child_run.cancel()

    def _nested_action(self, action: str) -> None:
        self._wait_child()
        child = self.nested()
        if child is None:
            raise exception.NotFound(
                message=f"Cannot {action.lower()} {self.name}, stack not created")
        self._start(child, self.child_stacks().run(child, action))

    # --- continuing an action another engine began (docs/plugin-guide.rst) -------------
    def _continue_nested(self, action: str, fresh: Callable[[], Any]) -> Any:
        """Continue the nested stack's ``action`` a dead engine left; return the check's cookie.

        The child in progress goes on from its stored states
        (:func:`hearth.engine.update.takeover.continue_action`), on a
        green thread as a child's action does; a child that finished it is
        only read by the check; a child never stored, or not reached by the
        action yet, gets it from ``fresh()`` (the handle).
        """
        child = self.nested()
        if child is not None and action == CREATE and child.action == INIT:
            # stored, never started: it is this resource's nested stack all the same
            self.resource_id_set(child.id)
            self._start(child, self.child_stacks().run(child, CREATE))
            return action
        if child is None or child.action != action:
            return fresh()
        if child.status == IN_PROGRESS:
            self._start(child, self.child_stacks().continue_action(child, action))
        return action

    def handle_create_continue(self) -> Any:
        """Continue the nested CREATE (or create the nested stack if it was never stored)."""
        return self._continue_nested(CREATE, self.handle_create)

    def handle_delete_continue(self) -> Any:
        """Continue the nested DELETE (or start it)."""
        return self._continue_nested(DELETE, self.handle_delete)

    def handle_suspend_continue(self) -> Any:
        """Continue the nested SUSPEND (or start it)."""
        return self._continue_nested(SUSPEND, self.handle_suspend)

    def handle_resume_continue(self) -> Any:
        """Continue the nested RESUME (or start it)."""
        return self._continue_nested(RESUME, self.handle_resume)

    def handle_check_continue(self) -> Any:
        """Continue the nested CHECK (or start it)."""
        return self._continue_nested(CHECK, self.handle_check)

    # --- outputs and members ------------------------------------------------------------
    def nested_outputs(self) -> dict[str, Any]:
        """Return the nested stack's resolved outputs (those without an error)."""
        child = self.nested()
        if child is None:
            return {}
        return {item["output_key"]: item["output_value"]
                for item in outputs.resolve_outputs(child) if "output_error" not in item}

    def get_output(self, name: str) -> Any:
        """Return the resolved output ``name`` of the nested stack (None before it exists)."""
        child = self.nested()
        if child is None:
            return None
        definitions = outputs.output_definitions(child)
        if name not in definitions and name in child.template.section("outputs"):
            return None  # an output whose condition is false has no value (as Heat)
        if name not in definitions:
            raise exception.InvalidTemplateAttribute.named(self.name, name, definitions)
        result = outputs.resolve_output(child, name, definitions[name])
        if "output_error" in result:
            raise exception.InvalidTemplateAttribute.named(self.name, name,
                                                           detail=result["output_error"])
        return result["output_value"]

    def nested_resource(self, name: str) -> resource.Resource:
        """Return member ``name`` of the nested stack (InvalidTemplateAttribute if absent)."""
        child = self.nested()
        if child is None or name not in child.resources:
            raise exception.InvalidTemplateAttribute.named(
                self.name, f"{MEMBER_PREFIX}{name}",
                [f"{MEMBER_PREFIX}{member}" for member in child.resources] if child else ())
        return child.resources[name]

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Accept ``resource.<name>[.<attr>]`` besides the declared attributes."""
        return name.startswith(MEMBER_PREFIX) or super().has_attribute(name)

    def FnGetAtt(self, name: str, *path: Any) -> Any:  # noqa: N802 - Heat's name
        """Return an attribute; ``resource.<name>[.<attr>]`` reads a nested member."""
        if not name.startswith(MEMBER_PREFIX):
            return super().FnGetAtt(name, *path)
        parts = [*name.split(".", 2)[1:], *path]
        member = self.nested_resource(str(parts[0]))
        if len(parts) == 1:
            return member.FnGetRefId()
        return member.FnGetAtt(str(parts[1]), *parts[2:])

    def _resolve_attribute(self, name: str) -> Any:
        return self.get_output(name)

    # --- replacement rules -----------------------------------------------------------------
    def _needs_update(self, after: Any, before: Any, after_props: Any, before_props: Any,
                      prev_resource: Any = None, check_init_complete: bool = True) -> bool:
        """Always update the nested stack in place (its members decide), as Heat.

        A CHECK_FAILED nested stack is replaced; one never created follows
        the base rules.
        """
        if (self.action, self.status) == (CHECK, FAILED):
            raise exception.UpdateReplace(self.name)
        if self.resource_id is None:
            super()._needs_update(after, before, after_props, before_props, prev_resource,
                                  check_init_complete)
        return True

    # --- default handlers: every action recurses into the nested stack -------------------
    def handle_create(self) -> None:
        """Create the nested stack of :meth:`child_template`."""
        self.create_with_template(self.child_template(), self.child_params())

    def check_create_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested CREATE is complete."""
        return self.check_nested_complete(CREATE)

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> str:
        """Take the new definition, then update the nested stack to its template."""
        self.t, self.properties = json_snippet, self.make_properties(json_snippet)
        return self.update_with_template(self.child_template(), self.child_params())

    def check_update_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested UPDATE (or CREATE, see update_with_template) is complete."""
        return self.check_nested_complete(cookie or UPDATE)

    def handle_delete(self) -> None:
        """Delete the nested stack."""
        self.delete_nested()

    def check_delete_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested DELETE is complete."""
        return self.check_nested_complete(DELETE)

    def handle_suspend(self) -> None:
        """Suspend the nested stack."""
        self._nested_action(SUSPEND)

    def check_suspend_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested SUSPEND is complete."""
        return self.check_nested_complete(SUSPEND)

    def handle_resume(self) -> None:
        """Resume the nested stack."""
        self._nested_action(RESUME)

    def check_resume_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested RESUME is complete."""
        return self.check_nested_complete(RESUME)

    def handle_check(self) -> None:
        """Check the nested stack."""
        self._nested_action(CHECK)

    def check_check_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested CHECK is complete."""
        return self.check_nested_complete(CHECK)

    def handle_snapshot(self) -> None:
        """Snapshot the nested stack."""
        self._nested_action(SNAPSHOT)

    def check_snapshot_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested SNAPSHOT is complete."""
        return self.check_nested_complete(SNAPSHOT)

    def handle_adopt(self, resource_data: Mapping[str, Any] | None = None) -> None:
        """Adopt the nested stack: create it from the child template, then ADOPT its members.

        As Heat, the entry of a nested stack's parent is the nested stack's
        own abandon data, whose ``resources`` entries its members adopt.
        """
        entries = (resource_data or {}).get("resources")
        entries = entries if isinstance(entries, Mapping) else {}
        runtime = self.child_stacks()
        child = runtime.create(self.child_template(), self.child_params(), None)
        self.resource_id_set(child.id)
        self._start(child, runtime.run_adopt(child, entries))

    def check_adopt_complete(self, cookie: Any = None) -> bool:
        """Return whether the nested ADOPT is complete."""
        return self.check_nested_complete(ADOPT)

    def handle_create_cancel(self, cookie: Any = None) -> None:
        """Cancel the nested CREATE (the parent's walk was cancelled or timed out)."""
        self.cancel_nested()

    def handle_update_cancel(self, cookie: Any = None) -> None:
        """Cancel the nested UPDATE (the parent's walk was cancelled or timed out)."""
        self.cancel_nested()
