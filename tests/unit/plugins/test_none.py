"""Tests of OS::Heat::None."""

import uuid

from hearth.plugins.none import NoneResource
from tests.unit.engine.resource_helpers import Definition, make


def test_accepts_anything_and_returns_none_attributes():
    res = make(NoneResource, {"flavor": "m1", "anything": [1]})
    res.validate()
    assert NoneResource.has_attribute("whatever") and res.FnGetAtt("whatever", "x") is None
    res.handle_create()
    assert uuid.UUID(res.resource_id) and res.data_get() == {"is_placeholder": "True"}
    assert res.handle_delete() == res.resource_id


def test_never_updated_or_replaced():
    res = make(NoneResource, {"a": 1})
    res.state_set("CREATE", "FAILED")
    changed = Definition("web", "OS::Heat::None", {"a": 2})
    assert res._needs_update(changed, res.t, res.properties, res.properties) is False
    assert res.update_diffs(changed) == ({}, {})
