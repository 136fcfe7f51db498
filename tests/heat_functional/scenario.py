"""The state and helpers of one scenario run: templates, addressing, waiting, errors.

A scenario file (``scenarios/*.yaml``) holds ``templates`` (named test inputs) and
``scenarios``: each a name, the Heat test it restates, an optional ``xfail`` reason and a
list of ``steps`` (see steps.py). Steps act on the scenario's stack; ``at: "a/b"``
addresses the nested stack behind resource ``b`` of the nested stack behind resource ``a``.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from heatclient import exc

WAIT_SECS = 30.0
POLL_SECS = 0.1


class Run:
    """The state of one scenario: the client, its templates, its stack and saved values."""

    def __init__(self, heat: Any, templates: dict, name: str) -> None:
        self.heat = heat
        self.templates = templates
        self.name = name
        self.identity: str | None = None
        self.saved: dict[str, Any] = {}
        self.others: list[str] = []

    # --- inputs ---------------------------------------------------------------
    def template(self, ref: Any) -> Any:
        """Resolve a template reference: a name, an inline template or a derivation."""
        if isinstance(ref, str) and ref in self.templates:
            return copy.deepcopy(self.templates[ref])
        if isinstance(ref, dict) and "use" in ref:
            return derive(self.template(ref["use"]), ref)
        return copy.deepcopy(ref)

    def files(self, files: dict | None) -> dict:
        """Return a files map with every template reference rendered as text."""
        rendered = {}
        for key, ref in (files or {}).items():
            value = self.template(ref)
            rendered[key] = value if isinstance(value, str) else json.dumps(value, default=str)
        return rendered

    def request(self, args: dict) -> dict:
        """Build the keyword arguments of a create, update or preview request."""
        body = {"files": self.files(args.get("files")),
                "parameters": args.get("parameters", {}),
                "environment": args.get("environment", {}),
                "disable_rollback": args.get("disable_rollback", True)}
        if "template" in args:
            body["template"] = self.template(args["template"])
        for key in ("tags", "timeout_mins", "existing", "show_nested", "environment_files"):
            if key in args:
                body[key] = args[key]
        return body

    # --- addressing -----------------------------------------------------------
    def stack(self, at: str | None = None) -> str:
        """Return the ``name/id`` identity of the scenario's stack or a nested one."""
        identity = self.identity
        for part in filter(None, (at or "").split("/")):
            resource = self.heat.resources.get(identity, part)
            nested = self.heat.stacks.get(resource.physical_resource_id, resolve_outputs=False)
            identity = f"{nested.stack_name}/{nested.id}"
        return identity

    def value(self, expected: Any) -> Any:
        """Replace ``$name`` strings by values saved earlier in the scenario."""
        if isinstance(expected, str) and expected.startswith("$"):
            return self.saved[expected[1:]]
        if isinstance(expected, list):
            return [self.value(item) for item in expected]
        if isinstance(expected, dict):
            return {key: self.value(item) for key, item in expected.items()}
        return expected


def derive(template: Any, how: dict) -> dict:
    """Return ``template`` changed as ``how`` says (Heat's tests edit their base dicts so)."""
    if isinstance(template, str):
        template = yaml.safe_load(template)
    for name, props in how.get("props", {}).items():
        template["resources"][name].setdefault("properties", {}).update(props)
    for path, value in how.get("set", {}).items():
        *parents, last = path.split(".")
        node = template
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = copy.deepcopy(value)
    for path in how.get("drop", []):
        *parents, last = path.split(".")
        node = template
        for key in parents:
            node = node[key]
        del node[last]
    return template


def marker(run: Run, stack: Any) -> tuple:
    """Return what tells one state of a stack from the next: two actions that end alike
    within one second differ only by their events."""
    newest = run.heat.events.list(f"{stack.stack_name}/{stack.id}", sort_dir="desc", limit=1)
    return (stack.stack_status, getattr(stack, "updated_time", None),
            getattr(stack, "stack_status_reason", None), newest[0].id if newest else None)


def wait_stack(run: Run, identity: str, expected: str, before: tuple | None = None,
               timeout: float = WAIT_SECS) -> Any:
    """Poll a stack until it reaches ``expected``; fail on another end state of that action.

    ``before`` is the stack's marker before the request: an unchanged end state is the
    previous action's, not this one's, until the stack is seen moving.
    """
    action = expected.split("_")[0]
    deadline = time.monotonic() + timeout
    moved = before is None
    while True:
        stack = run.heat.stacks.get(identity, resolve_outputs=False)
        status = stack.stack_status
        moved = moved or status.endswith("IN_PROGRESS") or marker(run, stack) != before
        if moved and status == expected:
            return stack
        ended = moved and not status.endswith("IN_PROGRESS")
        if ended and status.split("_")[0] == action:
            pytest.fail(f"{identity}: expected {expected}, got {status}: "
                        f"{stack.stack_status_reason}")
        if time.monotonic() > deadline:
            pytest.fail(f"{identity}: {expected} not reached in {timeout} s, still {status}: "
                        f"{stack.stack_status_reason}")
        time.sleep(POLL_SECS)


def expect_error(args: dict, call: Callable[[], Any]) -> bool:
    """Run ``call``; when the step expects an error, check it and return True."""
    if "error" not in args:
        call()
        return False
    with pytest.raises(exc.HTTPException) as raised:
        call()
    if "code" in args:
        assert raised.value.code == args["code"], str(raised.value)
    assert re.search(args["error"], str(raised.value)), str(raised.value)
    return True


def retry_in_progress(call: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call, retrying while the stack refuses with ActionInProgress (as Heat's tests do)."""
    deadline = time.monotonic() + WAIT_SECS
    while True:
        try:
            return call(*args, **kwargs)
        except exc.HTTPConflict as error:
            if "ActionInProgress" not in str(error.error) or time.monotonic() > deadline:
                raise
            time.sleep(POLL_SECS)
def wait_deleted(run: Run, identity: str) -> None:
    """Wait until a stack is not found or DELETE_COMPLETE (Heat shows it so by its id)."""
    deadline = time.monotonic() + WAIT_SECS
    while time.monotonic() < deadline:
        try:
            stack = run.heat.stacks.get(identity, resolve_outputs=False)
        except exc.HTTPNotFound:
            return
        if stack.stack_status == "DELETE_COMPLETE":
            return
        if stack.stack_status == "DELETE_FAILED":
            pytest.fail(f"{identity}: DELETE_FAILED: {stack.stack_status_reason}")
        time.sleep(POLL_SECS)
    pytest.fail(f"{identity} not deleted in {WAIT_SECS} s")
def dig(data: Any, path: str) -> Any:
    """Return ``data[a][b]...`` for a dotted ``a.b...`` path (list indexes are numbers)."""
    for key in path.split("."):
        data = data[int(key)] if isinstance(data, list) else data.get(key)
    return data
def flat(resources: list) -> list:
    for item in resources:
        yield from flat(item) if isinstance(item, list) else [item]
