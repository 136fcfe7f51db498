"""The steps of a scenario: ``STEPS`` maps each step kind to the function doing it.

A step is a one-key mapping ``{kind: arguments}``; each function acts through
python-heatclient and checks the answer against the arguments' expected values.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

from heatclient import exc

from tests.heat_functional.scenario import (
    POLL_SECS,
    WAIT_SECS,
    Run,
    dig,
    expect_error,
    flat,
    marker,
    retry_in_progress,
    wait_deleted,
    wait_stack,
)


def step_create(run: Run, args: dict) -> None:
    """POST a stack (``error``: the refusal expected instead) and wait for ``status``."""
    body = run.request(args)
    name = args.get("name", run.name)
    if "adopt" in args:
        body["adopt_stack_data"] = json.dumps(run.value(args["adopt"]))
        body.pop("template", None)
    if expect_error(args, lambda: run.heat.stacks.create(stack_name=name, **body)):
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
    before = marker(run, run.heat.stacks.get(identity, resolve_outputs=False))
    if expect_error(args, lambda: retry_in_progress(run.heat.stacks.update, identity, **body)):
        return
    wait_stack(run, identity, args.get("status", "UPDATE_COMPLETE"), before)


def step_action(run: Run, args: dict) -> None:
    """Run a stack action (suspend, resume, check, cancel_update, ...) and wait."""
    identity = run.stack(args.get("at"))
    before = marker(run, run.heat.stacks.get(identity, resolve_outputs=False))
    name = args["action"]
    if expect_error(args, lambda: getattr(run.heat.actions, name)(identity)):
        return
    wait_stack(run, identity, args["status"], before)


def step_delete(run: Run, args: dict) -> None:
    """DELETE the stack and wait until it is gone."""
    identity = run.stack(args.get("at"))
    run.heat.stacks.delete(identity)
    wait_deleted(run, identity)




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
    output errors; ``match``: patterns of values; ``save``: values kept for later steps;
    ``lengths``: sizes of values (``key.path`` reaches inside one). Outputs are read one by one with
    ``output-show`` when ``show`` is true, else from ``stack-show``.
    """
    identity = run.stack(args.get("at"))
    if args.get("show"):
        keys = {*args.get("expect", {}), *args.get("differ", {}), *args.get("errors", {}),
                *args.get("save", {}), *args.get("match", {}),
                *(k.split(".")[0] for k in args.get("lengths", {}))}
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
    for key, pattern in args.get("match", {}).items():
        assert re.search(pattern, str(outputs[key].get("output_value"))), outputs[key]
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
    expect_error(args, lambda: run.heat.resources.signal(identity, args["name"],
                                                         data=args.get("data")))


def step_preview_update(run: Run, args: dict) -> None:
    """The update preview lists exactly these resources under each change kind.

    A nested resource is written ``parent_resource/name``; kinds not given must be empty.
    """
    changes = run.heat.stacks.preview_update(run.identity, **run.request(args))
    changes = changes["resource_changes"]
    for kind in ("added", "deleted", "replaced", "unchanged", "updated"):
        got = sorted(f"{r['parent_resource']}/{r['resource_name']}"
                     if r.get("parent_resource") else r["resource_name"]
                     for r in changes.get(kind, []))
        assert got == sorted(args["expect"].get(kind, [])), (kind, changes)


def step_preview(run: Run, args: dict) -> None:
    """A stack preview's resources (name to type) are ``expect``."""
    body = run.request(args)
    preview = run.heat.stacks.preview(stack_name=args.get("name", run.name), **body)
    listed = {r["resource_name"]: r["resource_type"] for r in flat(preview.resources)}
    assert listed == args["expect"]




def step_validate(run: Run, args: dict) -> None:
    """template-validate: ``expect`` fields (or ``equal`` the whole answer), or ``error``."""
    body = {k: v for k, v in run.request(args).items() if k != "disable_rollback"}
    result = {}

    def call():
        result.update(run.heat.stacks.validate(**body))

    if expect_error(args, call):
        return
    for key, expected in args.get("expect", {}).items():
        assert dig(result, key) == expected, (key, dig(result, key))
    if "equal" in args:
        assert result == args["equal"], result


def step_events(run: Run, args: dict) -> None:
    """A resource's events carry each reason of ``counts`` that many times (polled)."""
    identity = run.stack(args.get("at"))
    deadline = time.monotonic() + args.get("timeout", 3)
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
    before = marker(run, run.heat.stacks.get(run.identity, resolve_outputs=False))
    snapshot = run.heat.stacks.snapshot(run.identity)
    run.saved[args.get("as", "snapshot")] = snapshot["id"]
    wait_stack(run, run.identity, "SNAPSHOT_COMPLETE", before)


def step_restore(run: Run, args: dict) -> None:
    """Restore a saved snapshot and wait for RESTORE_COMPLETE."""
    before = marker(run, run.heat.stacks.get(run.identity, resolve_outputs=False))
    run.heat.stacks.restore(run.identity, run.saved[args.get("snapshot", "snapshot")])
    wait_stack(run, run.identity, args.get("status", "RESTORE_COMPLETE"), before)


def step_abandon(run: Run, args: dict) -> None:
    """Abandon the stack; its data is saved as ``as``; ``expect`` fields are checked."""
    data = run.heat.stacks.abandon(run.identity)
    run.saved[args.get("as", "abandoned")] = data
    for key, expected in args.get("expect", {}).items():
        assert dig(data, key) == run.value(expected), (key, dig(data, key))
    wait_deleted(run, run.identity)


def step_save(run: Run, args: dict) -> None:
    """Save a literal value (or a dotted path of a saved value) under a name."""
    for var, source in args.items():
        root, _, path = source.partition(".")
        run.saved[var] = dig(run.saved[root], path) if path else run.saved[root]


def step_template_versions(run: Run, args: dict) -> None:
    """Every template version listed is one of ``within`` (its part after the dot)."""
    for version in run.heat.template_versions.list():
        assert version.version.split(".", 1)[1] in args["within"], version.version


def step_pause(run: Run, args: dict) -> None:
    """Sleep ``secs`` (a scenario of Heat that acts while work is under way)."""
    time.sleep(args["secs"])


STEPS: dict[str, Callable[[Run, dict], None]] = {
    "create": step_create, "update": step_update, "action": step_action,
    "delete": step_delete, "resources": step_resources, "resource": step_resource,
    "ids": step_ids, "outputs": step_outputs, "stack": step_stack, "is_stack": step_is_stack,
    "wait_resource": step_wait_resource, "settle": step_settle, "wait_stack": step_wait_stack,
    "signal": step_signal,
    "preview_update": step_preview_update, "preview": step_preview, "validate": step_validate,
    "events": step_events, "snapshot": step_snapshot, "restore": step_restore,
    "abandon": step_abandon, "save": step_save, "pause": step_pause,
    "template_versions": step_template_versions,
}
