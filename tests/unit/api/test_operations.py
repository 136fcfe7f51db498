"""The operations table against the services it names: it cannot drift from their signatures.

And a client's call (a method of a subclass of the table) reaches the
operation its arguments ask for.
"""

from __future__ import annotations

import inspect
import re

import pytest

from hearth.api import operation as operation_module
from hearth.api import operations
from hearth.api.arguments import (
    AsBody,
    Filters,
    FromContext,
    InBody,
    InPath,
    InQuery,
    StackInPath,
)
from hearth.api.operation import CATALOG, ENGINE, JOBS
from hearth.engine.service.catalog import Catalog
from hearth.engine.service.engine import EngineService
from hearth.jobservice.keys import KeyService
from hearth.jobservice.pillar import PillarService
from hearth.jobservice.service import JobService


class JobServices:
    """The JobService's methods and its key and pillar services' (what a job selector picks)."""

    keys = KeyService
    pillar = PillarService

    def __getattr__(self, name):
        return getattr(JobService, name)


SERVICES = {ENGINE: EngineService, CATALOG: Catalog, JOBS: JobServices()}
SERVED = [op for op in operations.OPERATIONS if op.select is not None]


def parameters(operation) -> dict[str, inspect.Parameter]:
    """Return the parameters of the method serving ``operation`` after self and the caller."""
    method = operation.select(SERVICES[operation.part])
    return dict(list(inspect.signature(method).parameters.items())[2:])


@pytest.mark.parametrize("operation", SERVED, ids=lambda op: op.name)
def test_arguments_are_the_methods_parameters_in_order(operation):
    declared = [arg.name for arg in operation.args]
    names = list(parameters(operation))
    assert set(declared) | set(operation.fixed) <= set(names)
    assert declared == [name for name in names if name in declared]
    required = {name for name, parameter in parameters(operation).items()
                if parameter.default is inspect.Parameter.empty}
    assert required <= set(declared) | set(operation.fixed)
    assert {arg.name for arg in operation.args if arg.required} <= required | {
        arg.name for arg in operation.args if isinstance(arg, InPath | StackInPath)}


@pytest.mark.parametrize("operation", operations.OPERATIONS, ids=lambda op: op.name)
def test_arguments_fit_the_route(operation):
    fields = set(re.findall(r"{(\w+)}", operation.path))
    for arg in operation.args:
        if isinstance(arg, InPath):
            assert arg.field in fields
        elif isinstance(arg, StackInPath):
            assert {"stack_name", "stack_id"} <= fields
        elif isinstance(arg, InQuery):
            assert operation.query is None or arg.key in operation.query
        elif isinstance(arg, Filters):
            assert operation.query
        elif isinstance(arg, FromContext):
            continue
        else:
            assert isinstance(arg, InBody | AsBody) and operation.body is not None


def test_names_and_routes_are_unique():
    names = [op.name for op in operations.OPERATIONS]
    assert len(names) == len(set(names)) and all(names)
    routes = [(op.method, op.path) for op in operations.OPERATIONS if op.applies is None]
    assert len(routes) == len(set(routes))
    variants = [op for op in operations.OPERATIONS if op.applies is not None]
    assert all((op.method, op.path) in routes for op in variants)


def test_the_table_is_what_stackctl_can_import_cheaply():
    import subprocess
    import sys
    code = ("import sys, hearth.api.operations; "
            "print(sorted({m.split('.')[0] for m in sys.modules}))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    for heavy in ("falcon", "sqlalchemy", "eventlet", "oslo_config", "jsonschema", "yaml",
                  "networkx", "requests", "zmq"):
        assert f"'{heavy}'" not in loaded


def test_each_service_method_is_a_client_method_of_its_name():
    served = {op.serves for op in SERVED}
    entries = {op.name for op in operations.OPERATIONS}
    assert served <= entries
    for op in SERVED:
        assert op in op.variants and all(v.serves == op.serves for v in op.variants)


@pytest.mark.parametrize("operation", SERVED, ids=lambda op: op.name)
def test_a_positional_call_fills_the_methods_parameters_in_order(operation):
    names = list(parameters(operation))
    assert list(operation.positional) == [name for name in names
                                          if name in operation.positional]


class Recorder(operations.Operations):
    """A client that records which operation a call reached, with what."""

    def call(self, operation, arguments):
        return operation, arguments


def route(call):
    operation, arguments = call
    return operation.method, operation.path.removeprefix(operation_module.TENANT), arguments


@pytest.mark.parametrize(("call", "expected"), [
    (lambda c: c.update_stack("s/1", template="t"),
     ("PUT", "/stacks/{stack_name}/{stack_id}", {"stack_identity": "s/1", "template": "t"})),
    (lambda c: c.update_stack("s/1", existing=True),
     ("PATCH", "/stacks/{stack_name}/{stack_id}", {"stack_identity": "s/1", "existing": True})),
    (lambda c: c.preview_update_stack("s", None, existing=True),
     ("PATCH", "/stacks/{stack_name}/{stack_id}/preview",
      {"stack_identity": "s", "template": None, "existing": True})),
    (lambda c: c.list_events("s/1", "db", limit=2),
     ("GET", "/stacks/{stack_name}/{stack_id}/resources/{resource_name}/events",
      {"stack_identity": "s/1", "resource_name": "db", "limit": 2})),
    (lambda c: c.list_events("s/1", None, {"resource_status": "FAILED"}),
     ("GET", "/stacks/{stack_name}/{stack_id}/events",
      {"stack_identity": "s/1", "resource_name": None,
       "filters": {"resource_status": "FAILED"}})),
    (lambda c: c.list_stacks(show_deleted=True),
     ("GET", "/stacks", {"show_deleted": True})),
    (lambda c: c.adopt_stack("s", {"resources": {}}),
     ("POST", "/stacks", {"stack_name": "s", "adopt_data": {"resources": {}}})),
])
def test_a_call_reaches_the_operation_its_arguments_ask_for(call, expected):
    assert route(call(Recorder())) == expected


def test_a_call_no_operation_takes_is_refused():
    with pytest.raises(TypeError, match="no operation takes"):
        Recorder().list_resources("s/1", colour="red")
    with pytest.raises(TypeError, match="takes 2 arguments"):
        Recorder().show_stack("s/1", True, "extra")
