"""stackctl create, update and delete of 1000 resources as real processes (issue 10).

Not timed (bench/cli_bench.py times them): each action must succeed and
print every state change once, in order, ending with the stack's final
state, past the per-stack event limit (1000) and its purges.
"""

import json

import pytest

from tests.functional.cli_scale import (
    SIZE,
    assert_printed_every_event,
    stackctl,
    write_templates,
)

#: state changes printed: two per resource acted on, and the stack's two (the
#: update deletes the second half and creates it under new names)
STATE_CHANGES = 2 * SIZE + 2


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["chain", "fanout"])
def test_create_update_delete_of_1000_print_every_state_change(tmp_path, shape):
    home = tmp_path / "home"
    home.mkdir()
    first, second = write_templates(tmp_path, shape)

    created = stackctl(home, "stack-create", "-f", first, "big")
    stack_id = json.loads(stackctl(home, "stack-show", "big", "--format", "json"))["id"]
    assert_printed_every_event(home, stack_id, created, "big", "CREATE_COMPLETE", STATE_CHANGES)

    updated = stackctl(home, "stack-update", "-f", second, "big")
    assert_printed_every_event(home, stack_id, updated, "big", "UPDATE_COMPLETE",
                               STATE_CHANGES)

    deleted = stackctl(home, "stack-delete", "-y", "big")
    assert_printed_every_event(home, stack_id, deleted, "big", "DELETE_COMPLETE", STATE_CHANGES)
