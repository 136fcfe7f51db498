"""Event paging over HTTP survives the per-stack purge (issue 10, defect 4).

A hearth-api keeping 20 events per stack (purged 5 at a time):
python-heatclient's own follower (``poll_for_events``, marker paging in
ascending order) sees every event of an action of 122 events, and a marker
that was purged answers as Heat does (the oldest events left), not 404.
"""

from __future__ import annotations

import io
import re

import pytest

from tests.functional.api.conftest import _start, _stop, wait_status
from tests.functional.cli_scale import none_template

heatclient = pytest.importorskip("heatclient.client")
event_utils = pytest.importorskip("heatclient.common.event_utils")

LINE = re.compile(r"\[(?P<name>[^\]]+)\]: (?P<status>\w+)")
RESOURCES = 60


@pytest.fixture(scope="module")
def small_limit_server(tmp_path_factory):
    """A --noauth hearth-api whose stacks keep at most 20 events."""
    directory = tmp_path_factory.mktemp("hearth-api-purge")
    config = directory / "hearth.conf"
    config.write_text("[DEFAULT]\nmax_events_per_stack = 20\nevent_purge_batch_size = 5\n")
    server = _start(str(directory), "--noauth", "--config-file", str(config))
    yield server
    _stop(server)


@pytest.fixture
def heat(small_limit_server):
    return heatclient.Client("1", endpoint=small_limit_server.url("purge"), token="any")


def test_heatclient_follows_an_action_past_the_event_limit(heat):
    import yaml
    template = yaml.safe_load(none_template("fanout", RESOURCES))
    heat.stacks.create(stack_name="followed", template=template)
    out = io.StringIO()
    status, _message = event_utils.poll_for_events(heat, "followed", action="CREATE",
                                                   poll_period=0.05, out=out)
    assert status == "CREATE_COMPLETE"
    # heatclient names a resource "<stack>.<resource>"
    seen = [(m["name"].removeprefix("followed."), m["status"])
            for m in LINE.finditer(out.getvalue())]
    names = ["root", *(f"r{i}" for i in range(1, RESOURCES))]
    expected = [(name, f"CREATE_{state}") for name in names
                for state in ("IN_PROGRESS", "COMPLETE")]
    resource_changes = [item for item in seen if item[0] != "followed"]
    assert sorted(resource_changes) == sorted(expected)
    assert seen[0] == ("followed", "CREATE_IN_PROGRESS")
    assert seen[-1] == ("followed", "CREATE_COMPLETE")


def test_a_purged_marker_pages_from_the_oldest_event_left(heat):
    import yaml
    template = yaml.safe_load(none_template("fanout", RESOURCES))
    stack_id = heat.stacks.create(stack_name="paged", template=template)["stack"]["id"]
    identity = f"paged/{stack_id}"
    wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict())
    first = heat.events.list(identity, sort_dir="asc")[0].id
    heat.actions.check(identity)  # a new action: the create's oldest events are purged
    assert wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict()
                       )["stack_status"] == "CHECK_COMPLETE"
    remaining = [event.id for event in heat.events.list(identity, sort_dir="asc")]
    assert first not in remaining
    after_purged = [event.id for event in heat.events.list(identity, marker=first,
                                                           sort_dir="asc")]
    assert after_purged == remaining
    assert heat.events.list(identity, marker=first, sort_dir="desc") == []
