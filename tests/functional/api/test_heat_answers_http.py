"""What Heat 27.0.1 answers, asked of hearth-api over real HTTP.

Each expectation was read from real Heat (``heat_allinone.py`` of the
reference oracle) for the same template and requests: a stack's
``description`` (``"No description"`` when the template has none, ``""`` in
a stack list), ``updated_time`` (unset by a create, set by an update or a
check), a resource's ``description`` (the template's, not the type's) and
the default order of events (newest first without sort keys; oldest first
with a sort key and no direction), the error a missing resource gives
(``ResourceNotFound``) and that of a resource without events (404).
"""

from __future__ import annotations

import pytest
import requests

from tests.functional.api.conftest import wait_status

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  word: {type: string, default: one}
resources:
  r: {type: OS::Heat::RandomString, properties: {length: 8}}
  v:
    type: OS::Heat::Value
    description: the value it shows
    properties: {value: {get_param: word}}
"""
DESCRIBED = "heat_template_version: 2018-08-31\ndescription: hello there\nresources: {}\n"


@pytest.fixture(scope="module")
def tenant(noauth_server):
    """The tenant URL with two stacks made: ``plain`` (TEMPLATE) and ``described``."""
    url = noauth_server.url("answers")
    for name, template in (("plain", TEMPLATE), ("described", DESCRIBED)):
        created = requests.post(f"{url}/stacks", json={"stack_name": name, "template": template},
                                timeout=30)
        assert created.status_code == 201, created.text
        wait_status(lambda name=name: show(url, name))
    return url


def show(url: str, name: str) -> dict:
    """GET a stack by name (following Heat's redirect to its id)."""
    response = requests.get(f"{url}/stacks/{name}", timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["stack"]


def test_a_stack_s_description_is_the_template_s_or_heat_s_default(tenant):
    assert show(tenant, "described")["description"] == "hello there"
    assert show(tenant, "described")["template_description"] == "hello there"
    plain = show(tenant, "plain")
    assert (plain["description"], plain["template_description"]) == ("No description",) * 2


def test_a_stack_list_gives_no_description(tenant):
    listed = requests.get(f"{tenant}/stacks", timeout=30).json()["stacks"]
    assert {stack["stack_name"]: stack["description"] for stack in listed} == {
        "plain": "", "described": ""}


def test_a_create_leaves_updated_time_unset_and_a_check_sets_it(tenant):
    described = show(tenant, "described")
    assert described["stack_status"] == "CREATE_COMPLETE"
    assert described["updated_time"] is None
    listed = requests.get(f"{tenant}/stacks", params={"name": "described"}, timeout=30)
    assert listed.json()["stacks"][0]["updated_time"] is None
    stack_url = f"{tenant}/stacks/described/{described['id']}"
    assert requests.post(f"{stack_url}/actions", json={"check": None},
                         timeout=30).status_code == 200
    checked = wait_status(lambda: show(tenant, "described"))
    assert checked["stack_status"] == "CHECK_COMPLETE"
    assert checked["updated_time"] is not None


def test_a_resource_s_description_is_the_one_its_template_gives(tenant):
    stack_id = show(tenant, "plain")["id"]
    base = f"{tenant}/stacks/plain/{stack_id}/resources"
    described = requests.get(f"{base}/v", timeout=30).json()["resource"]
    undescribed = requests.get(f"{base}/r", timeout=30).json()["resource"]
    assert (described["description"], undescribed["description"]) == ("the value it shows", "")
    detailed = requests.get(base, params={"with_detail": "true"}, timeout=30).json()
    assert {item["resource_name"]: item["description"] for item in detailed["resources"]} == {
        "v": "the value it shows", "r": ""}


def test_events_come_newest_first_unless_asked_otherwise(tenant):
    stack_id = show(tenant, "plain")["id"]
    events_url = f"{tenant}/stacks/plain/{stack_id}/events"

    def listed(**query):
        events = requests.get(events_url, params=query, timeout=30).json()["events"]
        return [(event["resource_name"], event["resource_status"]) for event in events]

    oldest_first = listed(sort_dir="asc")
    assert oldest_first[0] == ("plain", "CREATE_IN_PROGRESS")
    assert oldest_first[-1] == ("plain", "CREATE_COMPLETE")
    assert listed() == oldest_first[::-1]
    assert listed(limit=1) == [("plain", "CREATE_COMPLETE")]
    assert listed(sort_keys="event_time") == oldest_first
    assert listed(sort_keys="no_such_key") == oldest_first[::-1]


def test_a_missing_resource_is_heats_resource_not_found(tenant):
    stack_id = show(tenant, "plain")["id"]
    base = f"{tenant}/stacks/plain/{stack_id}/resources/nope"
    for answer in (requests.get(base, timeout=30), requests.get(f"{base}/metadata", timeout=30),
                   requests.post(f"{base}/signal", json={}, timeout=30)):
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"]["type"] == "ResourceNotFound"
        assert answer.json()["error"]["message"] == (
            "The Resource (nope) could not be found in Stack plain.")


def test_a_resource_without_events_is_a_404_as_in_heat(tenant):
    stack_id = show(tenant, "plain")["id"]
    answer = requests.get(f"{tenant}/stacks/plain/{stack_id}/resources/nope/events", timeout=30)
    assert answer.status_code == 404
    assert answer.json()["error"]["type"] == "HTTPNotFound"
    assert answer.json()["error"]["message"] == "No events found for resource nope"
    known = requests.get(f"{tenant}/stacks/plain/{stack_id}/resources/v/events", timeout=30)
    assert known.status_code == 200 and known.json()["events"]
