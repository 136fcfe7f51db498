"""The nesting depth and whole-tree resource limits, with Heat's texts."""

import pytest

from hearth.common import config, exception
from hearth.db import api_batch, api_nested, api_stacks
from hearth.engine.nested import limits


@pytest.fixture
def conf():
    config.register_opts()
    yield config.CONF
    config.CONF.clear_override("max_nested_stack_depth")
    config.CONF.clear_override("max_resources_per_stack")


def test_depth_below_the_limit_is_one_more(conf):
    conf.set_override("max_nested_stack_depth", 3)
    assert limits.child_depth(0) == 1
    assert limits.child_depth(2) == 3
    with pytest.raises(exception.RequestLimitExceeded) as raised:
        limits.child_depth(3)
    assert str(raised.value) == "Request limit exceeded: Recursion depth exceeds 3."


def _stack(db, name, owner=None, resources=0):
    raw = api_stacks.raw_template_create(db, {"heat_template_version": "2018-08-31"})
    row = api_stacks.stack_create(db, {"name": name, "raw_template_id": raw.id,
                                       "project_id": "p", "owner_id": owner})
    api_batch.resources_store_init(db, row.id, [(f"r{i}", f"{name}-{i}-uuid".ljust(36, "0"),
                                                 "OS::Heat::None") for i in range(resources)])
    return row.id


def _tree(db, stack_id):
    """The count of the tree ``stack_id`` is in, as the run-time half asks it."""
    return lambda: api_nested.tree_resource_count(db, api_nested.stack_root_id(db, stack_id))


def test_tree_size_counts_every_stack_under_the_root(db, conf):
    root = _stack(db, "root", resources=2)
    child = _stack(db, "child", owner=root, resources=3)
    grandchild = _stack(db, "grandchild", owner=child, resources=1)
    conf.set_override("max_resources_per_stack", 8)
    limits.check_tree_size(_tree(db, grandchild), 2)          # 6 + 2 = 8
    limits.check_tree_size(_tree(db, child), 5, removing=3)  # an update replacing 3
    with pytest.raises(exception.RequestLimitExceeded) as raised:
        limits.check_tree_size(_tree(db, root), 3)
    assert str(raised.value) == ("Request limit exceeded: Maximum resources per stack "
                                 "exceeded.")
    conf.set_override("max_resources_per_stack", -1)

    def never_asked():
        raise AssertionError("no limit: nothing is counted")
    limits.check_tree_size(never_asked, 10_000)
