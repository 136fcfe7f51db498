"""The OpenAPI document matches the routes table and the shipped file."""

import re

import falcon.testing
import jsonschema

from hearth.api import openapi
from hearth.api.app import ROUTES, build_app
from tests.unit.api.fakes import FakeService

_METHODS = {"get", "put", "post", "patch", "delete"}


def test_every_route_is_documented_and_vice_versa():
    document = openapi.build_document()
    documented = {(path, method.upper()) for path, item in document["paths"].items()
                  for method in item if method in _METHODS}
    routed = {(route.path, op.method) for route in ROUTES for op in route.operations}
    assert documented == routed


def test_shipped_file_is_current():
    with open(openapi.DOCUMENT_PATH, encoding="utf-8") as handle:
        assert handle.read() == openapi.render_document(), (
            "run: python -m hearth.api.openapi > hearth/api/openapi.json")


def test_every_reference_resolves_and_schemas_are_valid():
    document = openapi.build_document()
    text = str(document)
    for name in set(re.findall(r"#/components/schemas/(\w+)", text)):
        schema = document["components"]["schemas"][name]
        jsonschema.Draft202012Validator.check_schema(schema)


def test_served_document_is_the_file():
    client = falcon.testing.TestClient(build_app(FakeService(), noauth=True))
    result = client.simulate_get("/v1/openapi.json")
    assert result.status_code == 200
    assert result.json == openapi.load_document()


def _links(document):
    for item in document["paths"].values():
        for operation in item.values():
            for response in operation["responses"].values():
                yield from response.get("links", {}).values()


def test_links_reach_every_operation_that_needs_a_produced_parameter():
    """A client (or a stateful fuzzer) can reach every operation from list and create."""
    document = openapi.build_document()
    operations = {operation["operationId"]: (path, operation)
                  for path, item in document["paths"].items()
                  for operation in item.values()}
    linked = {}
    for link in _links(document):
        path, _ = operations[link["operationId"]]
        assert set(link["parameters"]) == set(re.findall(r"{(\w+)}", path)), link
        linked.setdefault(link["operationId"], []).append(link)
    needing = {operation_id for operation_id, (path, _) in operations.items()
               if set(re.findall(r"{(\w+)}", path)) - {"tenant_id"}}
    assert needing and needing <= set(linked)
    # a created stack leads to its resources, and a resource list to each resource
    create = document["paths"]["/v1/{tenant_id}/stacks"]["post"]["responses"]["201"]["links"]
    assert create["GET_stacks_stack_name_stack_id_resources"]["parameters"] == {
        "tenant_id": "$request.path.tenant_id", "stack_name": "$request.body#/stack_name",
        "stack_id": "$response.body#/stack/id"}
