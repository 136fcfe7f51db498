"""Schemathesis hooks of the API fuzzing test: let some creates and updates be real.

Loaded by the ``st`` process through ``SCHEMATHESIS_HOOKS``.  Generated
bodies almost never hold a valid template, so without help no stack would
ever be created and the OpenAPI links (from create and list answers to the
operations needing a stack) would lead nowhere.  Every other ``POST
/stacks`` and ``PUT`` of a stack therefore sends a valid template (a fresh
stack name for creates); the rest stay generated, so both paths are fuzzed.
Templates themselves are fuzzed by ``test_fuzz_templates.py``.
"""

from __future__ import annotations

import itertools
from typing import Any

import schemathesis

VALID_TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {"p": {"type": "string", "default": "x"}},
    "resources": {"a": {"type": "OS::Heat::None"},
                  "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "p"}}}},
    "outputs": {"o": {"value": {"get_attr": ["v", "value"]}}},
}
CREATE = "POST /v1/{tenant_id}/stacks"
UPDATE = "PUT /v1/{tenant_id}/stacks/{stack_name}/{stack_id}"
_COUNTER = itertools.count()


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    """Make every other create or update a valid one."""
    label = f"{case.method} {case.path}"
    if label not in (CREATE, UPDATE):
        return
    number = next(_COUNTER)
    if number % 2:
        return
    if label == CREATE:
        case.body = {"stack_name": f"fuzzed{number}", "template": VALID_TEMPLATE}
    else:
        case.body = {"template": VALID_TEMPLATE, "parameters": {"p": f"v{number}"}}
