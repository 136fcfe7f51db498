"""ResourceGroup and ResourceChain over real HTTP, driven by python-heatclient (SQLite)."""

from __future__ import annotations

import pytest
import yaml

from tests.functional.api.conftest import create_token, wait_status
from tests.functional.groups import templates

heatclient = pytest.importorskip("heatclient.client")


@pytest.fixture(scope="module")
def heat(api_server):
    token = create_token(api_server.env, "proj-groups")
    return heatclient.Client("1", endpoint=api_server.url("proj-groups"), token=token)


def _wait(heat, identity):
    return wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict(),
                       timeout=120)


def _output(heat, identity, key):
    return heat.stacks.output_show(identity, key)["output"]


def test_group_life_cycle_over_http(heat):
    created = heat.stacks.create(stack_name="hc-group", template=yaml.safe_load(templates.GROUP),
                                 parameters={"count": 2, "value": "w"})
    identity = f"hc-group/{created['stack']['id']}"
    assert _wait(heat, identity)["stack_status"] == "CREATE_COMPLETE"
    assert _output(heat, identity, "attributes")["output_value"] == {"0": "w0", "2": "w2"}
    refs_map = _output(heat, identity, "refs_map")["output_value"]
    assert _output(heat, identity, "refs")["output_value"] == [refs_map["0"], refs_map["2"]]
    assert _output(heat, identity, "gone")["output_error"] == (
        "Member '1' not found in group resource 'g'.")
    group = heat.resources.get(identity, "g")
    assert group.physical_resource_id == _output(heat, identity, "reference")["output_value"]
    members = [r for r in heat.resources.list(identity, nested_depth=1)
               if r.resource_type == "OS::Heat::TestResource"]
    assert sorted((r.resource_name, r.physical_resource_id) for r in members) == sorted(
        refs_map.items())

    heat.stacks.update(identity, existing=True, parameters={"count": 3})
    assert _wait(heat, identity)["stack_status"] == "UPDATE_COMPLETE"
    grown = _output(heat, identity, "refs_map")["output_value"]
    assert list(grown) == ["0", "2", "3"] and grown["0"] == refs_map["0"]
    heat.stacks.delete(identity)
    final = wait_status(lambda: _status_or_deleted(heat, identity), timeout=120)
    assert final["stack_status"] == "DELETE_COMPLETE"


def _status_or_deleted(heat, identity):
    from heatclient import exc
    try:
        return heat.stacks.get(identity, resolve_outputs=False).to_dict()
    except exc.HTTPNotFound:
        return {"stack_status": "DELETE_COMPLETE"}


def test_bad_members_are_a_400_naming_them(heat):
    from heatclient import exc
    bad = yaml.safe_load(templates.group_of("OS::Heat::TestResource", properties="{valu: 1}"))
    with pytest.raises(exc.HTTPBadRequest, match="Unknown Property valu"):
        heat.stacks.validate(template=bad)
    with pytest.raises(exc.HTTPBadRequest, match="is a template"):
        heat.stacks.create(stack_name="hc-chain",
                           template=yaml.safe_load(templates.chain_of("member.yaml")))
