"""Nested stacks read over real HTTP: python-heatclient and ``stackctl --url`` on hearth-api.

The tree of ``tests/functional/nested_reads`` is created once by heatclient
(files gathered by ``heatclient.common.template_utils``, as ``heat
stack-create`` does).  The expected shapes are real Heat 27's (recorded
with the oracle): nested stacks hidden from listings unless
``show_nested``, with ``parent``; resources with ``parent_resource`` and
``self``/``stack``/``nested`` links (heatclient's ``stack_name`` comes from
the ``stack`` link); nested events with a ``root_stack`` link (which tells
heatclient's ``event_utils`` the server listed them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import requests

from tests.functional.api.conftest import create_token, wait_status
from tests.functional.nested_reads import tree
from tests.functional.stackctl_process import STACKCTL

heatclient = pytest.importorskip("heatclient.client")
template_utils = pytest.importorskip("heatclient.common.template_utils")
event_utils = pytest.importorskip("heatclient.common.event_utils")

PROJECT = "proj-nested-reads"


def _files_and_env():
    files, template = template_utils.get_template_contents(template_file=tree.PARENT)
    env_files, env = template_utils.process_multiple_environments_and_files(
        env_paths=[tree.ENV])
    return template, {**files, **env_files}, env


@pytest.fixture(scope="module")
def token(api_server):
    return create_token(api_server.env, PROJECT)


@pytest.fixture(scope="module")
def heat(api_server, token):
    return heatclient.Client("1", endpoint=api_server.url(PROJECT), token=token)


@pytest.fixture(scope="module")
def par(heat):
    """Create the tree; return ``{"identity", "id", "stacks": {name: summary}}``."""
    template, files, env = _files_and_env()
    stack_id = heat.stacks.create(stack_name="par", template=template, files=files,
                                  environment=env)["stack"]["id"]
    done = wait_status(lambda: heat.stacks.get(stack_id, resolve_outputs=False).to_dict())
    assert done["stack_status"] == "CREATE_COMPLETE", done["stack_status_reason"]
    stacks = {s.stack_name: s.to_dict() for s in heat.stacks.list(show_nested=True)}
    return {"identity": f"par/{stack_id}", "id": stack_id, "stacks": stacks}


@pytest.fixture(scope="module")
def resources(heat, par):
    return heat.resources.list(par["identity"], nested_depth=2)


def _by_path(par, resources):
    rows = [dict(r.to_dict(), stack_name=r.stack_name) for r in resources]
    paths = tree.holder_paths(rows, list(par["stacks"].values()))
    return {path: par["stacks"][name] for name, path in paths.items()}


def _get(api_server, token, path, **query):
    response = requests.get(f"{api_server.url(PROJECT)}{path}", params=query,
                            headers={"X-Auth-Token": token}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def test_stack_list_and_show_of_nested_stacks(api_server, token, heat, par, resources):
    assert [s.stack_name for s in heat.stacks.list()] == ["par"]
    assert "project" not in heat.stacks.list().__next__().to_dict()  # not an admin
    stacks = par["stacks"]
    assert len(stacks) == 5 and stacks["par"]["parent"] is None
    by_path = _by_path(par, resources)
    for path in ("stk", "prov", "reg"):
        assert by_path[path]["parent"] == par["id"]
    deep = by_path["prov.deep"]
    assert deep["parent"] == by_path["prov"]["id"]
    for identity in (deep["id"], deep["stack_name"]):
        shown = heat.stacks.get(identity)
        assert (shown.id, shown.parent) == (deep["id"], by_path["prov"]["id"])
        assert [link["rel"] for link in shown.links] == ["self"]
        assert shown.parameters["ip"] == "x"
    assert _get(api_server, token, "/stacks", with_count="true")["count"] == 1
    counted = _get(api_server, token, "/stacks", with_count="true", show_nested="true",
                   limit=2, sort_keys="stack_name", sort_dir="asc")
    assert counted["count"] == 5
    names = sorted(stacks)
    assert [s["stack_name"] for s in counted["stacks"]] == names[:2]
    following = requests.get(counted["links"][0]["href"], headers={"X-Auth-Token": token},
                             timeout=30).json()
    assert [s["stack_name"] for s in following["stacks"]] == names[2:4]
    children = _get(api_server, token, "/stacks", show_nested="true", owner_id=par["id"])
    assert {s["stack_name"] for s in children["stacks"]} == {
        by_path[path]["stack_name"] for path in ("stk", "prov", "reg")}


def test_global_tenant_listing_counts_nested_stacks(api_server, par):
    admin = create_token(api_server.env, "proj-nested-admin", "--role", "admin")
    url = f"{api_server.url('proj-nested-admin')}/stacks"
    query = {"global_tenant": "true", "tenant": PROJECT, "with_count": "true"}
    headers = {"X-Auth-Token": admin}
    assert requests.get(url, params=query, headers=headers, timeout=30).json()["count"] == 1
    nested = requests.get(url, params={**query, "show_nested": "true"}, headers=headers,
                          timeout=30).json()
    assert nested["count"] == 5
    # an admin's listing names each stack's project, as Heat's
    assert {s["project"] for s in nested["stacks"]} == {PROJECT}


def test_resource_list_nested_depth(heat, par, resources):
    rows = [dict(r.to_dict(), stack_name=r.stack_name) for r in resources]
    assert tree.listed(rows, list(par["stacks"].values())) == tree.RESOURCES_DEPTH_2
    by_path = _by_path(par, resources)
    for resource in resources:
        item = resource.to_dict()
        assert not {"stack_id", "nested_stack_id", "nested_stack_name"} & set(item)
        rels = [link["rel"] for link in item["links"]]
        holds = item["resource_name"] in tree.HOLDERS
        assert rels == ["self", "stack", "nested"] if holds else ["self", "stack"]
    deep = by_path["prov.deep"]["stack_name"]
    leaf = next(r for r in resources if (r.stack_name, r.resource_name) == (deep, "leaf"))
    assert leaf.parent_resource == "deep"
    assert "parent_resource" not in resources[0].to_dict()
    prov = heat.resources.get(par["identity"], "prov")
    nested = next(link["href"] for link in prov.links if link["rel"] == "nested")
    assert nested.endswith(f"/stacks/{by_path['prov']['stack_name']}/{by_path['prov']['id']}")
    one = heat.resources.list(par["identity"], nested_depth=1, with_detail=True)
    assert len(one) == len(tree.RESOURCES_DEPTH_1)
    detailed = {(r.stack_name, r.resource_name): r for r in one}
    # Heat's detail: the attributes resource-show shows (a provider template's outputs)
    assert detailed[by_path["prov"]["stack_name"], "deep"].attributes == {"o": "x"}
    assert detailed["par", "reg"].attributes == {"o": "w"}
    assert detailed["par", "top"].attributes == {}


def test_event_list_nested_depth_as_heatclient_lists_it(heat, par):
    events = event_utils.get_events(heat, par["identity"], {"sort_dir": "asc"},
                                     nested_depth=2)
    assert {e.stack_name for e in events} == set(par["stacks"])
    for event in events:
        rels = [link["rel"] for link in event.links]
        assert rels == ["self", "resource", "stack", "root_stack"]
        assert event.links[3]["href"].endswith(f"/stacks/{par['identity']}")
    times = [e.event_time for e in events]
    assert times == sorted(times)
    first = event_utils.get_events(heat, par["identity"], {"sort_dir": "asc"},
                                   nested_depth=2, limit=5)
    after = event_utils.get_events(heat, par["identity"], {"sort_dir": "asc"},
                                   nested_depth=2, marker=first[-1].id, limit=5)
    assert [e.id for e in first + after] == [e.id for e in events[:10]]
    flat = heat.events.list(par["identity"])
    assert {e.resource_name for e in flat} <= {"par", "top", "stk", "prov", "reg"}
    assert all(len(e.links) == 3 for e in flat)


def test_validate_show_nested(heat):
    template, files, env = _files_and_env()
    result = heat.stacks.validate(template=template, files=files, environment=env,
                                  show_nested=True)
    nested = result["NestedParameters"]
    assert sorted(nested) == ["prov", "reg", "stk"]
    assert nested["stk"]["Parameters"]["ip"]["Value"] == "v"
    assert nested["reg"]["Parameters"]["ip"]["Value"] == "w"
    assert nested["prov"]["NestedParameters"]["deep"]["Parameters"]["ip"]["Value"] == "x"
    assert "NestedParameters" not in heat.stacks.validate(template=template, files=files,
                                                          environment=env)


def _stackctl(api_server, token, *args):
    env = {**api_server.env, "HEARTH_URL": api_server.url(PROJECT), "HEARTH_TOKEN": token}
    result = subprocess.run([STACKCTL, *args], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_stackctl_url_shows_what_heat_shows(api_server, token, par):
    def listing(*args):
        return json.loads(_stackctl(api_server, token, *args, "--format", "json"))
    stacks = listing("stack-list", "--show-nested")
    assert {s["stack_name"]: s["parent"] for s in stacks} == {
        name: s["parent"] for name, s in par["stacks"].items()}
    assert tree.listed(listing("resource-list", "--nested-depth", "2", "par"),
                       stacks) == tree.RESOURCES_DEPTH_2
    events = listing("event-list", "-n", "2", "--limit", "500", "par")
    assert {e["stack_name"] for e in events} == set(par["stacks"])
    log = _stackctl(api_server, token, "event-list", "-n", "2", "par")
    assert "[prov.deep.leaf]: CREATE_COMPLETE  state changed" in log
    validated = listing("template-validate", "-f", tree.PARENT, "-e", tree.ENV,
                        "--show-nested")
    assert sorted(validated["NestedParameters"]) == ["prov", "reg", "stk"]


OPENSTACK = os.path.join(os.path.dirname(sys.executable), "openstack")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(OPENSTACK), reason="openstack CLI missing")
def test_openstack_cli_nested_listings(api_server, token, par):
    def osc(*args):
        result = subprocess.run(
            [OPENSTACK, "--os-auth-type", "admin_token", "--os-token", token,
             "--os-endpoint", api_server.url(PROJECT), *args, "-f", "json"],
            capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)
    stacks = osc("stack", "list", "--nested")
    assert {s["Stack Name"]: s["Parent"] for s in stacks} == {
        name: s["parent"] for name, s in par["stacks"].items()}
    resources = osc("stack", "resource", "list", "--nested-depth", "2", "par")
    assert tree.listed(resources, list(par["stacks"].values())) == tree.RESOURCES_DEPTH_2
    events = osc("stack", "event", "list", "--nested-depth", "2", "par")
    assert {e["stack_name"] for e in events} == set(par["stacks"])


def test_a_nested_stack_updated_and_deleted_directly(heat, par, resources):
    """Real Heat 27 answers 202 and 204 and leaves the parent as it was: so does Hearth."""
    stk = _by_path(par, resources)["stk"]
    identity = f"{stk['stack_name']}/{stk['id']}"
    heat.stacks.update(identity, existing=True, parameters={"ip": "changed"})
    updated = wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict(),
                          ("UPDATE_COMPLETE", "UPDATE_FAILED"))
    assert updated["stack_status"] == "UPDATE_COMPLETE"
    assert updated["parameters"]["ip"] == "changed"
    heat.stacks.delete(identity)
    deleted = wait_status(lambda: heat.stacks.get(stk["id"], resolve_outputs=False).to_dict(),
                          ("DELETE_COMPLETE", "DELETE_FAILED"))
    assert deleted["stack_status"] == "DELETE_COMPLETE"
    parent = heat.stacks.get(par["identity"], resolve_outputs=False)
    assert parent.stack_status == "CREATE_COMPLETE"
    holder = heat.resources.get(par["identity"], "stk")
    assert (holder.resource_status, holder.physical_resource_id) == (
        "CREATE_COMPLETE", stk["id"])
    heat.stacks.delete(par["identity"])
    gone = wait_status(lambda: heat.stacks.get(par["id"], resolve_outputs=False).to_dict(),
                       ("DELETE_COMPLETE", "DELETE_FAILED"))
    assert gone["stack_status"] == "DELETE_COMPLETE"
    assert list(heat.stacks.list(show_nested=True)) == []

