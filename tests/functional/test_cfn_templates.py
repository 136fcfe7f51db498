"""CloudFormation-format templates through ``stackctl`` as a subprocess.

The same engine paths as HOT, spelled the CloudFormation way: validate,
create, update (a condition flipping), provider templates in
either format, JSON documents, the version and function listings, the
stored template and abandon data as written, and located errors.
Outputs and answers were checked against OpenStack Heat 27.0.1 for the
same templates (``templates/cfn.yaml``).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from tests.functional import stackctl_process

ROOT = pathlib.Path(__file__).resolve().parents[2]
SITE = ROOT / "templates" / "cfn.yaml"

#: a CloudFormation-format provider template, used by a CFN and a HOT parent
PROVIDER = """\
HeatTemplateFormatVersion: '2012-12-12'
Parameters:
  Name: {Type: String}
  Count: {Type: Number, Default: 1}
Resources:
  Label:
    Type: OS::Heat::Value
    Properties:
      value: {'Fn::Join': [':', [{Ref: Name}, {Ref: 'AWS::StackName'}]]}
Outputs:
  Label: {Value: {'Fn::GetAtt': [Label, value]}}
"""

PARENT = """\
AWSTemplateFormatVersion: '2010-09-09'
Resources:
  Names:
    Type: OS::Heat::RandomString
    Properties: {length: 6}
  Box:
    Type: box.yaml
    Properties:
      Name: {'Fn::GetAtt': [Names, value]}
Outputs:
  Label: {Value: {'Fn::GetAtt': [Box, Label]}}
  Name: {Value: {'Fn::GetAtt': [Names, value]}}
"""

HOT_PARENT = """\
heat_template_version: 2021-04-16
resources:
  box:
    type: box.yaml
    properties: {Name: hot}
outputs:
  label: {value: {get_attr: [box, Label]}}
"""

JSON_TEMPLATE = """{
  "AWSTemplateFormatVersion": "2010-09-09",
  "Description": "JSON, as CloudFormation users write it",
  "Parameters": {"Greeting": {"Type": "String", "Default": "hello"}},
  "Resources": {
    "Says": {"Type": "OS::Heat::Value",
             "Properties": {"value": {"Fn::Join": [" ", [{"Ref": "Greeting"}, "world"]]}}}
  },
  "Outputs": {"Said": {"Value": {"Fn::GetAtt": ["Says", "value"]}}}
}
"""


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """Run stackctl in one HEARTH_HOME with abandon enabled; templates in ``cli.root``."""
    root = tmp_path_factory.mktemp("cfn-cli")
    config = root / "hearth.conf"
    config.write_text("[DEFAULT]\nenable_stack_abandon = true\n")
    for name, text in (("box.yaml", PROVIDER), ("parent.yaml", PARENT),
                       ("hot_parent.yaml", HOT_PARENT), ("hello.json", JSON_TEMPLATE)):
        (root / name).write_text(text)

    def run(*args, code=0):
        done = stackctl_process.run(root / "home", *args, config=config)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        return done

    run.root = root
    yield run
    from tests.conftest import stop_local_engines
    stop_local_engines(root / "home")


def outputs(cli, name):
    stack = json.loads(cli("stack-show", name, "--format", "json").stdout)
    return {o["output_key"]: o["output_value"] for o in stack["outputs"]}, stack


@pytest.mark.slow
def test_create_update_and_read_a_cfn_stack(cli):
    cli("stack-create", "-f", str(SITE), "site")
    values, stack = outputs(cli, "site")
    assert values["Flavor"] == {"flavor": "small", "workers": 2, "name": "site-dev",
                                "zone": "south"}
    assert values["Monitor"] is None  # its condition is false: listed, no value (as Heat)
    assert stack["parameters"]["AWS::StackName"] == "site"
    assert stack["parameters"]["AWS::StackId"] == (
        f"arn:openstack:heat::admin:stacks/site/{stack['id']}")
    assert stack["parameters"]["Password"] == "******"
    assert stack["description"] == "A CloudFormation-format template of generic resources, " \
                                   "as Heat reads it."

    cli("stack-update", "-f", str(SITE), "-P", "Env=prod", "site")
    values, _ = outputs(cli, "site")
    assert values["Flavor"]["flavor"] == "large" and values["Flavor"]["workers"] == 8
    resources = json.loads(cli("resource-list", "site", "--format", "json").stdout)
    assert sorted(r["resource_name"] for r in resources) == ["Config", "Monitor", "Secret"]
    assert values["Monitor"] == next(r["physical_resource_id"] for r in resources
                                     if r["resource_name"] == "Monitor")

    shown = json.loads(cli("template-show", "site", "--format", "json").stdout)
    assert shown["AWSTemplateFormatVersion"] == "2010-09-09" and "Resources" in shown
    abandoned = json.loads(cli("stack-abandon", "site").stdout)
    assert abandoned["template"] == shown
    assert set(abandoned["resources"]) == {"Config", "Monitor", "Secret"}


@pytest.mark.slow
def test_provider_templates_of_either_format(cli):
    cli("stack-create", "-f", str(cli.root / "parent.yaml"), "cfnbox")
    values, _ = outputs(cli, "cfnbox")
    assert values["Label"].startswith(f"{values['Name']}:cfnbox-Box-")
    cli("stack-create", "-f", str(cli.root / "hot_parent.yaml"), "hotbox")
    values, _ = outputs(cli, "hotbox")
    assert values["label"].startswith("hot:hotbox-box-")
    nested = json.loads(cli("template-validate", "-f", str(cli.root / "hot_parent.yaml"),
                            "--show-nested", "--format", "json").stdout)
    assert nested["NestedParameters"]["box"]["Parameters"]["Count"]["Type"] == "Number"
    for name in ("cfnbox", "hotbox"):
        cli("stack-delete", "-y", name)


def test_a_json_template_creates(cli):
    validated = json.loads(cli("template-validate", "-f", str(cli.root / "hello.json"),
                               "--format", "json").stdout)
    assert validated["Description"] == "JSON, as CloudFormation users write it"
    cli("stack-create", "-f", str(cli.root / "hello.json"), "-P", "Greeting=hi", "hello")
    assert outputs(cli, "hello")[0] == {"Said": "hi world"}
    cli("stack-delete", "-y", "hello")


def test_errors_name_file_line_and_cfn_path(cli):
    broken = cli.root / "broken.json"
    broken.write_text(JSON_TEMPLATE.replace('"Greeting"}, "world"', '"Greting"}, "world"'))
    for command in (["template-validate"], ["stack-create"]):
        done = cli(*command, "-f", str(broken), *(["nope"] if command[0] != "template-validate"
                                                   else []), code=1)
        assert done.stderr.strip() == (
            f"ERROR: {broken}:7: Resources.Says.Properties.value.Fn::Join.1.0: The specified "
            'reference "Greting" (in Resources.Says.Properties.value.Fn::Join.1.0) is '
            'incorrect. Did you mean "Greeting"?')
    aws = cli.root / "aws.yaml"
    aws.write_text("AWSTemplateFormatVersion: '2010-09-09'\nResources:\n"
                   "  Web: {Type: AWS::EC2::Instance}\n")
    done = cli("template-validate", "-f", str(aws), code=1)
    assert done.stderr.strip() == (f"ERROR: {aws}:3: Resources.Web.Type: The Resource Type "
                                   "(AWS::EC2::Instance) could not be found.")


def test_version_and_function_listings(cli):
    rows = json.loads(cli("template-version-list", "--format", "json").stdout)
    assert rows[:2] == [
        {"version": "AWSTemplateFormatVersion.2010-09-09", "type": "cfn", "aliases": []},
        {"version": "HeatTemplateFormatVersion.2012-12-12", "type": "cfn", "aliases": []}]
    functions = json.loads(cli("template-function-list", "AWSTemplateFormatVersion.2010-09-09",
                               "--with-condition-functions", "--format", "json").stdout)
    names = [row["functions"] for row in functions]
    assert names[-5:] == ["Fn::If", "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or"]
    assert {"functions": "Ref", "description": "A function for resolving parameter "
                                               "references."} in functions


FACADE_PARENT = """\
AWSTemplateFormatVersion: '2010-09-09'
Resources:
  Inner:
    Type: facade.yaml
    Metadata: {role: db}
    DeletionPolicy: Retain
Outputs:
  Role: {Value: {'Fn::GetAtt': [Inner, Role]}}
  Policy: {Value: {'Fn::GetAtt': [Inner, Policy]}}
"""

FACADE_CHILD = """\
HeatTemplateFormatVersion: '2012-12-12'
Resources:
  Seen:
    Type: OS::Heat::Value
    Properties:
      type: json
      value: {'Fn::ResourceFacade': Metadata}
Outputs:
  Role: {Value: {'Fn::Select': [role, {'Fn::GetAtt': [Seen, value]}]}}
  Policy: {Value: {'Fn::ResourceFacade': DeletionPolicy}}
"""


def test_resource_facade_reads_the_parent_while_validating_too(cli):
    # a required property fed by the facade: validation read None ("Property value not
    # assigned") though the parent resource's metadata is there (Heat creates it)
    (cli.root / "facade.yaml").write_text(FACADE_CHILD)
    (cli.root / "facade_parent.yaml").write_text(FACADE_PARENT)
    cli("template-validate", "-f", str(cli.root / "facade_parent.yaml"), "--show-nested")
    cli("stack-create", "-f", str(cli.root / "facade_parent.yaml"), "facade")
    assert outputs(cli, "facade")[0] == {"Role": "db", "Policy": "Retain"}
    cli("stack-delete", "-y", "facade")
