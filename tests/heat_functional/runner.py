"""Run a scenario of Heat's functional tests, written as data, against hearth-api.

A scenario file (``scenarios/*.yaml``) holds ``templates`` (named test inputs) and
``scenarios``: each a name, the Heat test it restates, an optional ``xfail`` reason and a
list of ``steps``. A step is a one-key mapping ``{kind: arguments}``; ``STEPS`` maps each
kind to the function that performs it through python-heatclient and checks its result.
Steps act on the scenario's stack; ``at: "a/b"`` addresses the nested stack behind
resource ``b`` of the nested stack behind resource ``a``.
"""

from __future__ import annotations

import copy
import json
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from heatclient import exc

SCENARIOS = Path(__file__).parent / "scenarios"
WAIT_SECS = 60.0
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


# --- waiting ------------------------------------------------------------------
def _marker(stack: Any) -> tuple:
    return (stack.stack_status, getattr(stack, "updated_time", None),
            getattr(stack, "stack_status_reason", None))


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
        moved = moved or _marker(stack) != before or status.endswith("IN_PROGRESS")
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


def _expect_error(args: dict, call: Callable[[], Any]) -> bool:
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


# --- steps --------------------------------------------------------------------
def step_create(run: Run, args: dict) -> None:
    """POST a stack (``error``: the refusal expected instead) and wait for ``status``."""
    body = run.request(args)
    name = args.get("name", run.name)
    if "adopt" in args:
        body["adopt_stack_data"] = json.dumps(run.value(args["adopt"]))
        body.pop("template", None)
    if _expect_error(args, lambda: run.heat.stacks.create(stack_name=name, **body)):
        return
    stack = run.heat.stacks.get(name, resolve_outputs=False)
    identity = f"{name}/{stack.id}"
    if args.get("as"):
        run.saved[args["as"]] = identity
        run.others.append(identity)
    else:
        run.identity = identity
    default = "ADOPT_COMPLETE" if "adopt" in args else "CREATE_COMPLETE"
    wait_stack(run, identity, args.get("status", default))


def step_update(run: Run, args: dict) -> None:
    """PUT (or PATCH with ``existing``) the stack and wait for ``status``."""
    body = run.request(args)
    identity = run.stack(args.get("at"))
    before = _marker(run.heat.stacks.get(identity, resolve_outputs=False))
    if _expect_error(args, lambda: run.heat.stacks.update(identity, **body)):
        return
    wait_stack(run, identity, args.get("status", "UPDATE_COMPLETE"), before)


def step_action(run: Run, args: dict) -> None:
    """Run a stack action (suspend, resume, check, cancel_update, ...) and wait."""
    identity = run.stack(args.get("at"))
    before = _marker(run.heat.stacks.get(identity, resolve_outputs=False))
    name = args["action"]
    if _expect_error(args, lambda: getattr(run.heat.actions, name)(identity)):
        return
    wait_stack(run, identity, args["status"], before)


def step_delete(run: Run, args: dict) -> None:
    """DELETE the stack and wait until it is gone (or reaches ``status``)."""
    identity = run.stack(args.get("at"))
    run.heat.stacks.delete(identity)
    deadline = time.monotonic() + WAIT_SECS
    while time.monotonic() < deadline:
        try:
            stack = run.heat.stacks.get(identity, resolve_outputs=False)
        except exc.HTTPNotFound:
            return
        if stack.stack_status == args.get("status", "DELETE_COMPLETE"):
            return
        if stack.stack_status == "DELETE_FAILED":
            pytest.fail(f"{identity}: DELETE_FAILED: {stack.stack_status_reason}")
        time.sleep(POLL_SECS)
    pytest.fail(f"{identity} not deleted in {WAIT_SECS} s")


def step_resources(run: Run, args: dict) -> None:
    """The stack's resources, name to type, are exactly ``expect`` (or named ``names``).

    ``hide`` lists statuses of resources left out (Heat's tests skip DELETE_COMPLETE ones).
    """
    identity = run.stack(args.get("at"))
    listed = {r.resource_name: r.resource_type for r in run.heat.resources.list(identity)
              if r.resource_status not in args.get("hide", ())}
    if "names" in args:
        assert sorted(listed) == sorted(str(name) for name in args["names"]), listed
    if "expect" in args:
        assert listed == args["expect"], listed


def step_resource(run: Run, args: dict) -> None:
    """Fields of one resource (dotted keys reach into ``attributes``) equal ``expect``."""
    resource = run.heat.resources.get(run.stack(args.get("at")), args["name"]).to_dict()
    for key, expected in args.get("expect", {}).items():
        assert dig(resource, key) == run.value(expected), key
    for key, pattern in args.get("match", {}).items():
        assert re.search(pattern, str(dig(resource, key))), (key, dig(resource, key))
    if "save" in args:
        for key, var in args["save"].items():
            run.saved[var] = dig(resource, key)


def dig(data: Any, path: str) -> Any:
    """Return ``data[a][b]...`` for a dotted ``a.b...`` path (list indexes are numbers)."""
    for key in path.split("."):
        data = data[int(key)] if isinstance(data, list) else data.get(key)
    return data


def step_ids(run: Run, args: dict) -> None:
    """Save physical ids (``save``), or check them ``same`` or ``changed`` since saved."""
    identity = run.stack(args.get("at"))
    for mode in ("save", "same", "changed"):
        for name in args.get(mode, []):
            key = f"id:{args.get('at', '')}/{name}"
            current = run.heat.resources.get(identity, name).physical_resource_id
            if mode == "save":
                run.saved[key] = current
            elif mode == "same":
                assert current == run.saved[key], f"{name} replaced"
            else:
                assert current != run.saved[key], f"{name} not replaced"


def step_outputs(run: Run, args: dict) -> None:
    """The stack's outputs (resolved, or their ``output_error``) are as expected.

    ``expect``: equal values; ``differ``: values they must not be; ``errors``: patterns of
    output errors; ``save``: values kept for later steps; ``lengths``: sizes of values
    (``key.path`` reaches inside one). Outputs are read one by one with
    ``output-show`` when ``show`` is true, else from ``stack-show``.
    """
    identity = run.stack(args.get("at"))
    if args.get("show"):
        keys = {*args.get("expect", {}), *args.get("differ", {}), *args.get("errors", {}),
                *args.get("save", {}), *(k.split(".")[0] for k in args.get("lengths", {}))}
        outputs = {key: run.heat.stacks.output_show(identity, key)["output"] for key in keys}
    else:
        stack = run.heat.stacks.get(identity)
        outputs = {o["output_key"]: o for o in stack.to_dict().get("outputs", [])}
    for key, expected in args.get("expect", {}).items():
        assert outputs[key].get("output_value") == run.value(expected), (key, outputs[key])
    for key, unexpected in args.get("differ", {}).items():
        assert outputs[key].get("output_value") != run.value(unexpected), (key, outputs[key])
    for key, pattern in args.get("errors", {}).items():
        assert re.search(pattern, outputs[key].get("output_error") or ""), outputs[key]
    for key, var in args.get("save", {}).items():
        run.saved[var] = outputs[key].get("output_value")
    for path, length in args.get("lengths", {}).items():
        key, _, rest = path.partition(".")
        value = outputs[key].get("output_value")
        assert len(dig(value, rest) if rest else value) == length, (path, value)


def step_stack(run: Run, args: dict) -> None:
    """Fields of the stack (``stack-show``) equal ``expect``; ``parent`` true checks it."""
    stack = run.heat.stacks.get(run.stack(args.get("at")), resolve_outputs=False).to_dict()
    for key, expected in args.get("expect", {}).items():
        assert dig(stack, key) == run.value(expected), (key, dig(stack, key))
    if args.get("parent"):
        at = args["at"].rsplit("/", 1)
        parent = run.stack(at[0] if len(at) > 1 else None)
        assert stack["parent"] == parent.split("/")[-1]


def step_is_stack(run: Run, args: dict) -> None:
    """Each named resource is backed by a nested stack whose parent is this stack."""
    identity = run.stack(args.get("at"))
    for name in args["names"]:
        resource = run.heat.resources.get(identity, name)
        nested = [link["href"] for link in resource.links if link["rel"] == "nested"]
        assert nested, f"{name} has no nested link"
        assert nested[0].rsplit("/", 1)[-1] == resource.physical_resource_id
        child = run.heat.stacks.get(resource.physical_resource_id, resolve_outputs=False)
        assert child.parent == identity.split("/")[-1]


def step_wait_resource(run: Run, args: dict) -> None:
    """Poll until each named resource has its status (e.g. a hook or a signal wait)."""
    identity = run.stack(args.get("at"))
    deadline = time.monotonic() + args.get("timeout", WAIT_SECS)
    for name, status in args["expect"].items():
        while True:
            try:
                current = run.heat.resources.get(identity, name).resource_status
            except exc.HTTPNotFound:
                current = None
            if current == status:
                break
            assert time.monotonic() < deadline, f"{name}: {current}, not {status}"
            time.sleep(POLL_SECS)


def step_wait_stack(run: Run, args: dict) -> None:
    """Wait for the stack (or a nested one) to reach ``status``."""
    wait_stack(run, run.stack(args.get("at")), args["status"], timeout=args.get("timeout",
                                                                              WAIT_SECS))


def step_settle(run: Run, args: dict) -> None:
    """Poll until the group behind ``name`` has ``count`` members, all complete, and its
    metadata no longer says ``scaling_in_progress`` (as Heat's check_autoscale_complete)."""
    deadline = time.monotonic() + args.get("timeout", WAIT_SECS)
    while True:
        members = run.heat.resources.list(run.stack(args["name"]))
        done = len(members) == args["count"] and all(
            m.resource_status in ("CREATE_COMPLETE", "UPDATE_COMPLETE") for m in members)
        if done and not run.heat.resources.metadata(run.identity, args["name"]).get(
                "scaling_in_progress"):
            return
        assert time.monotonic() < deadline, [(m.resource_name, m.resource_status)
                                             for m in members]
        time.sleep(POLL_SECS)


def step_signal(run: Run, args: dict) -> None:
    """Signal a resource (``data`` the signal's body); ``error`` the refusal expected."""
    identity = run.stack(args.get("at"))
    _expect_error(args, lambda: run.heat.resources.signal(identity, args["name"],
                                                         data=args.get("data")))


def step_preview_update(run: Run, args: dict) -> None:
    """The update preview lists these resource names under each change kind."""
    changes = run.heat.stacks.preview_update(run.identity, **run.request(args))
    changes = changes["resource_changes"]
    for kind, names in args["expect"].items():
        got = sorted(r["resource_name"] for r in changes.get(kind, []))
        assert got == sorted(names), (kind, got)


def step_preview(run: Run, args: dict) -> None:
    """A stack preview's resources (name to type) are ``expect``."""
    body = run.request(args)
    preview = run.heat.stacks.preview(stack_name=args.get("name", run.name), **body)
    listed = {r["resource_name"]: r["resource_type"] for r in _flat(preview.resources)}
    assert listed == args["expect"]


def _flat(resources: list) -> list:
    for item in resources:
        yield from _flat(item) if isinstance(item, list) else [item]


def step_validate(run: Run, args: dict) -> None:
    """template-validate: ``expect`` fields (or ``equal`` the whole answer), or ``error``."""
    body = {k: v for k, v in run.request(args).items() if k != "disable_rollback"}
    result = {}

    def call():
        result.update(run.heat.stacks.validate(**body))

    if _expect_error(args, call):
        return
    for key, expected in args.get("expect", {}).items():
        assert dig(result, key) == expected, (key, dig(result, key))
    if "equal" in args:
        assert result == args["equal"], result


def step_events(run: Run, args: dict) -> None:
    """A resource's events carry each reason of ``counts`` that many times (polled)."""
    identity = run.stack(args.get("at"))
    deadline = time.monotonic() + args.get("timeout", 10)
    while True:
        events = run.heat.events.list(identity, resource_name=args.get("name"))
        reasons = [e.resource_status_reason for e in events]
        counts = {reason: reasons.count(reason) for reason in args["counts"]}
        if counts == args["counts"]:
            return
        assert time.monotonic() < deadline, reasons
        time.sleep(POLL_SECS)


def step_snapshot(run: Run, args: dict) -> None:
    """Snapshot the stack, wait for SNAPSHOT_COMPLETE, save the snapshot id as ``as``."""
    before = _marker(run.heat.stacks.get(run.identity, resolve_outputs=False))
    snapshot = run.heat.stacks.snapshot(run.identity)
    run.saved[args.get("as", "snapshot")] = snapshot["id"]
    wait_stack(run, run.identity, "SNAPSHOT_COMPLETE", before)


def step_restore(run: Run, args: dict) -> None:
    """Restore a saved snapshot and wait for RESTORE_COMPLETE."""
    before = _marker(run.heat.stacks.get(run.identity, resolve_outputs=False))
    run.heat.stacks.restore(run.identity, run.saved[args.get("snapshot", "snapshot")])
    wait_stack(run, run.identity, args.get("status", "RESTORE_COMPLETE"), before)


def step_abandon(run: Run, args: dict) -> None:
    """Abandon the stack; its data is saved as ``as``; ``expect`` fields are checked."""
    data = run.heat.stacks.abandon(run.identity)
    run.saved[args.get("as", "abandoned")] = data
    for key, expected in args.get("expect", {}).items():
        assert dig(data, key) == run.value(expected), (key, dig(data, key))
    with pytest.raises(exc.HTTPNotFound):
        _wait_gone(run, run.identity)


def _wait_gone(run: Run, identity: str) -> None:
    deadline = time.monotonic() + WAIT_SECS
    while time.monotonic() < deadline:
        run.heat.stacks.get(identity, resolve_outputs=False)
        time.sleep(POLL_SECS)


def step_save(run: Run, args: dict) -> None:
    """Save a literal value (or a dotted path of a saved value) under a name."""
    for var, source in args.items():
        root, _, path = source.partition(".")
        run.saved[var] = dig(run.saved[root], path) if path else run.saved[root]


STEPS: dict[str, Callable[[Run, dict], None]] = {
    "create": step_create, "update": step_update, "action": step_action,
    "delete": step_delete, "resources": step_resources, "resource": step_resource,
    "ids": step_ids, "outputs": step_outputs, "stack": step_stack, "is_stack": step_is_stack,
    "wait_resource": step_wait_resource, "settle": step_settle, "wait_stack": step_wait_stack, "signal": step_signal,
    "preview_update": step_preview_update, "preview": step_preview, "validate": step_validate,
    "events": step_events, "snapshot": step_snapshot, "restore": step_restore,
    "abandon": step_abandon, "save": step_save,
}


# --- loading ------------------------------------------------------------------
def all_scenarios() -> list:
    """Return one pytest param per scenario of every scenario file."""
    params = []
    for path in sorted(SCENARIOS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        for scenario in data["scenarios"]:
            scenario = {**scenario, "templates": data.get("templates", {})}
            reason = scenario.get("xfail", data.get("xfail"))
            marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
            params.append(pytest.param(scenario, id=f"{path.stem}-{scenario['name']}",
                                       marks=marks))
    return params


def play(heat: Any, scenario: dict) -> None:
    """Run every step of a scenario, then delete the stacks it created."""
    name = f"{scenario['name'].replace('_', '-')}-{uuid.uuid4().hex[:6]}"
    run = Run(heat, scenario["templates"], name)
    try:
        for number, step in enumerate(_flat(scenario["steps"]), 1):
            (kind, args), = step.items()
            try:
                STEPS[kind](run, args or {})
            except AssertionError as error:
                raise AssertionError(f"step {number} ({kind}): {error}") from error
    finally:
        _clean_up(heat, [run.identity, *run.others])


def _clean_up(heat: Any, identities: list) -> None:
    """Delete the scenario's stacks and wait for them, so scenarios do not overlap."""
    for identity in filter(None, identities):
        try:
            heat.stacks.delete(identity)
        except exc.HTTPException:
            continue
    deadline = time.monotonic() + WAIT_SECS
    for identity in filter(None, identities):
        while time.monotonic() < deadline:
            try:
                status = heat.stacks.get(identity, resolve_outputs=False).stack_status
            except exc.HTTPNotFound:
                break
            if status in ("DELETE_COMPLETE", "DELETE_FAILED"):
                break
            time.sleep(POLL_SECS)
