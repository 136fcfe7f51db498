"""Scaling signals in one engine process: concurrent signals, a stale mark, a suspended stack.

The same tests run on PostgreSQL from ``test_autoscaling_engine_postgres.py``
(the group's metadata is read and written in one row-locked transaction).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hearth.common import exception
from hearth.common.green import spawn
from hearth.db import api_resources
from hearth.engine.scaling import cooldown
from tests.fixtures.engine import CTX, create_and_wait, events

TEMPLATE = """
heat_template_version: 2015-04-30
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 4
      desired_capacity: 2
      resource: {type: OS::Heat::None}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: group}
      scaling_adjustment: 1
outputs:
  size: {value: {get_attr: [group, current_size]}}
"""


def size(service, stack_id):
    outputs = service.show_stack(CTX, stack_id)["outputs"]
    return next(item["output_value"] for item in outputs if item["output_key"] == "size")


def signal_events(service, stack_id):
    return [reason for name, status, reason in events(service, stack_id)
            if status.startswith("SIGNAL")]


def test_two_signals_at_once_resize_once(service):
    stack = create_and_wait(service, "twice", TEMPLATE)
    threads = [spawn(service.resource_signal, CTX, stack["id"], "up") for _ in range(2)]
    for thread in threads:
        thread.wait()
    assert size(service, stack["id"]) == 3
    # the second found the first one's scaling in progress: ignored, no event (as Heat)
    assert signal_events(service, stack["id"]) == ["No signal details provided"]
    assert service.resource_metadata(CTX, stack["id"], "group")["scaling_in_progress"] is False
    group_id = service.show_resource(CTX, stack["id"], "group")["physical_resource_id"]
    service.delete_stack(CTX, stack["id"])
    assert service.wait(CTX, stack["id"])["stack_status"] == "DELETE_COMPLETE"
    assert service.show_stack(CTX, group_id)["stack_status"] == "DELETE_COMPLETE"


def test_a_mark_left_by_a_stopped_engine_expires(service):
    stack = create_and_wait(service, "stale", TEMPLATE)
    row = api_resources.resource_get_by_name(service.db, stack["id"], "group")
    # two minutes ago, its nested stack not acting since: far less than the stack's timeout
    long_ago = (cooldown.utc_now() - timedelta(minutes=2)).isoformat()
    api_resources.resource_update(service.db, row.id, metadata={
        "scaling_in_progress": True, "scaling_started": long_ago})
    service.resource_signal(CTX, stack["id"], "up")
    assert size(service, stack["id"]) == 3
    assert service.resource_metadata(CTX, stack["id"], "group")["scaling_in_progress"] is False


def test_a_suspended_stack_takes_no_signal(service):
    stack = create_and_wait(service, "asleep", TEMPLATE)
    service.stack_action(CTX, stack["id"], "suspend")
    assert service.wait(CTX, stack["id"])["stack_status"] == "SUSPEND_COMPLETE"
    with pytest.raises(exception.NotSupported, match="Signal resource during SUSPEND"):
        service.resource_signal(CTX, stack["id"], "up")
    assert size(service, stack["id"]) == 2


def test_an_update_waits_for_a_running_resize(service):
    from hearth.common.green import green_sleep
    stack = create_and_wait(service, "queued", TEMPLATE)
    row = api_resources.resource_get_by_name(service.db, stack["id"], "group")
    mark = cooldown.begin_scaling({}, "group")  # a signal's resize running elsewhere
    api_resources.resource_update(service.db, row.id, metadata=mark)
    service.update_stack(CTX, stack["id"], TEMPLATE.replace("desired_capacity: 2",
                                                            "desired_capacity: 3"))
    green_sleep(1.5)
    assert service.show_stack(CTX, stack["id"])["stack_status"] == "UPDATE_IN_PROGRESS"
    assert size(service, stack["id"]) == 2
    api_resources.resource_update(service.db, row.id,
                                  metadata=cooldown.finished_scaling(mark, 0, "elsewhere"))
    assert service.wait(CTX, stack["id"])["stack_status"] == "UPDATE_COMPLETE"
    assert size(service, stack["id"]) == 3
    stored = service.resource_metadata(CTX, stack["id"], "group")
    assert stored["scaling_in_progress"] is False
    assert list(stored["cooldown_end"].values()) == ["ExactCapacity : 3"]
