"""stackctl follows an action whose events pass the per-stack limit (issue 10, defect 4).

Events are purged past ``max_events_per_stack``; the purge must not make the
progress display lose its place, and no failure of the display may change
the outcome of the action (a closed output, as in ``stackctl ... | head``).
"""

import json
import re

import pytest

from tests.functional.stackctl_process import run, start

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \[(?P<name>[^\]]+)\]: (?P<status>\S+)")


def fan_out(count: int) -> str:
    """Return a template of ``count`` OS::Heat::None under one root."""
    lines = ["heat_template_version: 2018-08-31", "resources:", "  root: {type: OS::Heat::None}"]
    lines += [f"  r{i}: {{type: OS::Heat::None, depends_on: root}}" for i in range(count - 1)]
    return "\n".join(lines) + "\n"


def state_changes(stdout: str) -> list[tuple[str, str]]:
    """Return the (resource, status) pairs of the progress lines, in order."""
    return [(m["name"], m["status"]) for m in map(LINE.match, stdout.splitlines()) if m]


def assert_followed_once(stdout: str, stack: str, action: str, names: list[str]) -> None:
    """Every resource's two state changes once, in order, between the stack's own."""
    changes = state_changes(stdout)
    assert changes[0] == (stack, f"{action}_IN_PROGRESS")
    assert changes[-1] == (stack, f"{action}_COMPLETE")
    middle = changes[1:-1]
    assert sorted(middle) == sorted((name, f"{action}_{status}") for name in names
                                    for status in ("IN_PROGRESS", "COMPLETE"))
    for name in names:
        assert middle.index((name, f"{action}_IN_PROGRESS")) < middle.index(
            (name, f"{action}_COMPLETE"))
    assert stdout.splitlines()[-1] == f"Stack {stack} {action}_COMPLETE"


def lock_holder(home, stack_name: str) -> str | None:
    """Return the engine that holds the stack's lock (None: nobody)."""
    from hearth.db import api
    from hearth.db.session import forget_database
    url = f"sqlite:///{home / 'hearth.db'}"
    db = api.get_database(url)
    try:
        return api.lock_get_engine_id(db, api.stack_get_by_name(db, stack_name).id)
    finally:
        forget_database(url)


@pytest.fixture
def home(tmp_path):
    """Return a HEARTH_HOME; its config keeps 20 events per stack, purged 5 at a time."""
    state = tmp_path / "home"
    state.mkdir()
    (tmp_path / "hearth.conf").write_text(
        "[DEFAULT]\nmax_events_per_stack = 20\nevent_purge_batch_size = 5\n")
    (tmp_path / "fan.yaml").write_text(fan_out(60))
    return state


def test_create_and_delete_follow_their_events_past_the_purge_limit(home):
    config = home.parent / "hearth.conf"
    names = ["root", *(f"r{i}" for i in range(59))]
    created = run(home, "stack-create", "-f", str(home.parent / "fan.yaml"), "fan",
                  config=config)
    assert created.returncode == 0, created.stderr
    assert created.stderr == ""
    assert_followed_once(created.stdout, "fan", "CREATE", names)
    assert lock_holder(home, "fan") is None  # stackctl ended only once its engine was done

    deleted = run(home, "stack-delete", "-y", "fan", config=config)
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stderr == ""
    assert_followed_once(deleted.stdout, "fan", "DELETE", names)


SLOW = """
heat_template_version: 2018-08-31
resources:
  first: {type: OS::Heat::None}
  slow:
    type: OS::Heat::TestResource
    depends_on: first
    properties: {action_wait_secs: {create: 2}}
"""


@pytest.mark.slow
def test_a_closed_output_does_not_change_the_outcome_of_the_action(home):
    """``stackctl stack-create ... | head -1``: the stack is still created, in full."""
    (home.parent / "slow.yaml").write_text(SLOW)
    process = start(home, "stack-create", "-f", str(home.parent / "slow.yaml"), "slow")
    first = process.stdout.readline()
    assert "[slow]: CREATE_IN_PROGRESS" in first
    process.stdout.close()  # the reader goes away while the action runs
    assert process.wait(timeout=60) == 0
    shown = run(home, "stack-show", "slow", "--format", "json")
    assert json.loads(shown.stdout)["stack_status"] == "CREATE_COMPLETE"
    resources = run(home, "resource-list", "slow", "--format", "json")
    assert {item["resource_status"] for item in json.loads(resources.stdout)} == {
        "CREATE_COMPLETE"}
    assert "WARNING: progress display stopped (the output was closed)" in process.stderr.read()
    process.stderr.close()
