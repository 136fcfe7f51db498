"""CloudFormation-format templates over real HTTP with unmodified python-heatclient.

As Heat's own functional tests send them: the template as text, its
provider template in the ``files`` map under the name its ``Type`` gives.
Answers were checked against OpenStack Heat 27.0.1 for the same requests.
"""

from __future__ import annotations

import pathlib

import pytest

from tests.functional.api.conftest import create_token, wait_status

heatclient = pytest.importorskip("heatclient.client")
exc = pytest.importorskip("heatclient.exc")

SITE = (pathlib.Path(__file__).resolve().parents[3] / "templates" / "cfn.yaml").read_text()

MAIN = """\
HeatTemplateFormatVersion: '2012-12-12'
Resources:
  the_nested:
    Type: the.yaml
    Properties:
      one: my_name
Outputs:
  identifier:
    Value: {Ref: the_nested}
  value:
    Value: {'Fn::GetAtt': [the_nested, the_str]}
"""

NESTED = """\
HeatTemplateFormatVersion: '2012-12-12'
Parameters:
  one:
    Default: foo
    Type: String
Resources:
  RealRandom:
    Type: OS::Heat::RandomString
    Properties:
      salt: {Ref: one}
Outputs:
  the_str:
    Value: {'Fn::GetAtt': [RealRandom, value]}
"""


@pytest.fixture(scope="module")
def heat(api_server):
    """A heatclient of a project of its own."""
    token = create_token(api_server.env, "proj-cfn")
    return heatclient.Client("1", endpoint=api_server.url("proj-cfn"), token=token)


def _wait(heat, identity):
    return wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict())


def _outputs(heat, identity):
    return {o["output_key"]: o["output_value"]
            for o in heat.stacks.get(identity).to_dict()["outputs"]}


def test_listings_have_heats_cfn_versions(heat):
    versions = [v.to_dict() for v in heat.template_versions.list()]
    assert versions[:2] == [
        {"version": "AWSTemplateFormatVersion.2010-09-09", "type": "cfn", "aliases": []},
        {"version": "HeatTemplateFormatVersion.2012-12-12", "type": "cfn", "aliases": []}]
    names = [f.functions for f in heat.template_versions.get(
        "HeatTemplateFormatVersion.2012-12-12")]
    assert names == ["Fn::FindInMap", "Fn::GetAZs", "Ref", "Fn::GetAtt", "Fn::Select",
                     "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64",
                     "Fn::MemberListToMap", "Fn::ResourceFacade"]


def test_validate_preview_and_a_located_error(heat):
    validated = heat.stacks.validate(template=SITE, parameters={"Env": "prod"})
    assert validated["Parameters"]["Env"]["Value"] == "prod"
    assert validated["Parameters"]["Password"]["NoEcho"] == "true"
    preview = heat.stacks.preview(stack_name="pv", template=SITE,
                                  parameters={"Env": "prod"}).to_dict()
    assert sorted(r["resource_name"] for r in preview["resources"]) == [
        "Config", "Monitor", "Secret"]
    assert preview["parameters"]["AWS::StackName"] == "pv"
    with pytest.raises(exc.HTTPBadRequest) as raised:
        heat.stacks.validate(template=SITE.replace("{Ref: Workers}", "{Ref: Worker}"))
    assert ('Resources.Config.Properties.value.workers.Fn::If.2: The specified reference '
            '"Worker" (in Resources.Config.Properties.value.workers.Fn::If.2) is incorrect. '
            'Did you mean "Workers"?') in str(raised.value)


def test_a_cfn_provider_template_creates_updates_and_deletes(heat):
    stack_id = heat.stacks.create(stack_name="cfnnest", template=MAIN,
                                  files={"the.yaml": NESTED})["stack"]["id"]
    assert _wait(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    first = _outputs(heat, stack_id)
    nested = heat.resources.get(stack_id, "the_nested").to_dict()
    assert first["identifier"].startswith("arn:openstack:heat::proj-cfn:stacks/cfnnest-the_nested-")
    assert first["identifier"].endswith(nested["physical_resource_id"])
    assert len(first["value"]) == 32

    changed = MAIN.replace("one: my_name", "one: other_name")
    heat.stacks.update(stack_id, template=changed, files={"the.yaml": NESTED})
    assert _wait(heat, stack_id)["stack_status"] == "UPDATE_COMPLETE"
    second = _outputs(heat, stack_id)
    assert second["identifier"] == first["identifier"] and second["value"] != first["value"]

    heat.stacks.delete(stack_id)
    final = wait_status(lambda: _status_or_deleted(heat, stack_id))
    assert final["stack_status"] == "DELETE_COMPLETE"


def _status_or_deleted(heat, identity):
    try:
        return heat.stacks.get(identity, resolve_outputs=False).to_dict()
    except exc.HTTPNotFound:
        return {"stack_status": "DELETE_COMPLETE"}
