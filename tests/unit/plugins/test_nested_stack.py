"""OS::Heat::Stack: its schema, a remote region refused, its template validated with the parent."""

import json

import pytest

from hearth.common import exception
from hearth.common.context import RequestContext

CTX = RequestContext.local()
CHILD = {"heat_template_version": "2018-08-31",
         "parameters": {"p": {"type": "string"}},
         "resources": {"v": {"type": "OS::Heat::Value", "properties": {
             "value": {"get_param": "p"}}}}}


@pytest.fixture(scope="module")
def catalog():
    from hearth.common import config
    from hearth.engine.service.catalog import Catalog
    config.load(config_files=[])
    return Catalog()


def parent(**properties):
    return {"heat_template_version": "2018-08-31",
            "resources": {"st": {"type": "OS::Heat::Stack", "properties": properties}}}


def test_schema_has_heats_properties_and_attributes(catalog):
    schema = catalog.resource_schema(CTX, "OS::Heat::Stack")
    assert sorted(schema["properties"]) == ["context", "parameters", "template", "timeout"]
    assert schema["properties"]["template"]["required"] is True
    assert sorted(schema["attributes"]) == ["outputs", "show", "stack_name"]


def test_a_remote_region_is_refused_clearly(catalog):
    template = parent(template=json.dumps(CHILD), parameters={"p": "x"},
                      context={"region_name": "RegionTwo"})
    with pytest.raises(exception.StackValidationFailed) as raised:
        catalog.validate_template(CTX, template)
    assert "resources.st.properties.context.region_name" in str(raised.value)
    assert "remote region (RegionTwo) is not supported" in str(raised.value)


def test_the_nested_template_is_validated_with_the_parent(catalog):
    catalog.validate_template(CTX, parent(template=json.dumps(CHILD), parameters={"p": "x"}))
    broken = dict(CHILD, resources={"v": {"type": "OS::Heat::Valu"}})
    with pytest.raises(exception.StackValidationFailed) as raised:
        catalog.validate_template(CTX, parent(template=json.dumps(broken)))
    assert "resources.st.resources.v.type: The Resource Type (OS::Heat::Valu) could not be " \
           "found." in str(raised.value)
    with pytest.raises(exception.StackValidationFailed) as raised:
        catalog.validate_template(CTX, parent(template="heat_template_version: [oops"))
    assert "st (nested template)" in str(raised.value)
