"""stackctl --url creates and deletes 1000 resources through hearth-api (issue 10).

The same checks as the embedded scale tests: the action succeeds and
stackctl prints every state change once, in order, ending with the stack's
final state, while the server purges events past its per-stack limit.
"""

import json

import pytest

from tests.functional.cli_scale import (
    SIZE,
    assert_printed_every_event,
    stackctl,
    write_templates,
)

STATE_CHANGES = 2 * SIZE + 2


@pytest.mark.slow
def test_fanout_of_1000_over_http_prints_every_state_change(noauth_server, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    url = noauth_server.url("scale")
    first, _second = write_templates(tmp_path, "fanout")

    created = stackctl(home, "stack-create", "-f", first, "big-http", url=url)
    stack_id = json.loads(stackctl(home, "stack-show", "big-http", "--format", "json",
                                   url=url))["id"]
    assert_printed_every_event(home, stack_id, created, "big-http", "CREATE_COMPLETE",
                               STATE_CHANGES, url=url)

    deleted = stackctl(home, "stack-delete", "-y", "big-http", url=url)
    assert_printed_every_event(home, stack_id, deleted, "big-http", "DELETE_COMPLETE",
                               STATE_CHANGES, url=url)
