"""Property tests: a condition's truth is the same at validation, in preview and in a live stack.

Hypothesis generates ``conditions`` sections (``equals``/``not``/``and``/
``or`` trees over parameters, booleans and earlier condition names) and
parameter values.  Each condition's truth is computed four ways and must
agree: a plain Python reference evaluator, template validation, the stack
preview (which resources a condition keeps) and a live stack created
in-process (its ``if`` outputs and which resources it has).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth.engine.template.template import Template
from tests.fixtures.engine import CTX, create_and_wait

PARAMS = ("p0", "p1")
VALUES = ("a", "b")


def leaf(names: list[str]) -> st.SearchStrategy:
    choices = [st.booleans(),
               st.builds(lambda p, v: {"equals": [{"get_param": p}, v]},
                         st.sampled_from(PARAMS), st.sampled_from(VALUES))]
    if names:
        choices.append(st.sampled_from(names))
    return st.one_of(*choices)


def expression(names: list[str]) -> st.SearchStrategy:
    return st.recursive(
        leaf(names),
        lambda inner: st.one_of(
            st.builds(lambda x: {"not": x}, inner),
            st.builds(lambda xs: {"and": xs}, st.lists(inner, min_size=2, max_size=3)),
            st.builds(lambda xs: {"or": xs}, st.lists(inner, min_size=2, max_size=3))),
        max_leaves=6)


@st.composite
def sections(draw) -> dict[str, Any]:
    """Draw a conditions section whose conditions refer only to earlier ones (no cycles)."""
    section: dict[str, Any] = {}
    for index in range(draw(st.integers(min_value=1, max_value=4))):
        drawn = draw(expression(list(section)))
        # Heat refuses a bare condition name as a whole definition (it must be a
        # boolean or a function); names are fine inside not/and/or.
        section[f"c{index}"] = {"and": [drawn, True]} if isinstance(drawn, str) else drawn
    return section


def reference(expr: Any, section: dict[str, Any], params: dict[str, str]) -> bool:
    """Evaluate a condition expression the way Heat defines it."""
    if isinstance(expr, bool):
        return expr
    if isinstance(expr, str):
        return reference(section[expr], section, params)
    (name, args), = expr.items()
    if name == "equals":
        return params[args[0]["get_param"]] == args[1]
    if name == "not":
        return not reference(args, section, params)
    values = [reference(item, section, params) for item in args]
    return all(values) if name == "and" else any(values)


def template(section: dict[str, Any]) -> dict[str, Any]:
    """Return a template with one resource and one ``if`` output per condition."""
    return {
        "heat_template_version": "2021-04-16",
        "parameters": {name: {"type": "string", "default": "a"} for name in PARAMS},
        "conditions": section,
        "resources": {f"r_{name}": {"type": "OS::Heat::None", "condition": name}
                      for name in section},
        "outputs": {name: {"value": {"if": [name, "yes", "no"]}} for name in section},
    }


@pytest.mark.slow
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(section=sections(), values=st.fixed_dictionaries(
    {name: st.sampled_from(VALUES) for name in PARAMS}))
def test_validation_preview_and_live_stack_agree(service, section, values):
    data = template(section)
    expected = {name: reference(name, section, values) for name in section}

    parsed = Template(data)
    validated = parsed.context(parsed.parameters(values)).conditions.evaluate_all()
    assert validated == expected

    preview = service.preview_stack(CTX, "pv", data, params=values)
    kept = {item["resource_name"] for item in preview["resources"]}
    assert kept == {f"r_{name}" for name, truth in expected.items() if truth}

    stack = create_and_wait(service, f"s{abs(hash(str((section, values)))) % 10**8}", data,
                            params=values)
    assert stack["stack_status"] == "CREATE_COMPLETE"
    live = service.show_stack(CTX, stack["id"])
    assert {item["output_key"]: item["output_value"] == "yes"
            for item in live["outputs"]} == expected
    resources = {item["resource_name"] for item in service.list_resources(CTX, stack["id"])}
    assert resources == kept
    service.delete_stack(CTX, stack["id"])
    service.wait(CTX, stack["id"])


def test_a_bare_condition_name_as_a_definition_is_refused_on_every_path(service):
    data = template({"c0": True, "c1": "c0"})
    message = ('The definition of condition "c1" is invalid: c0')
    with pytest.raises(Exception) as validated:
        service.catalog.validate_template(CTX, data)
    with pytest.raises(Exception) as previewed:
        service.preview_stack(CTX, "pv", data)
    with pytest.raises(Exception) as created:
        service.create_stack(CTX, "bare", data)
    for error in (validated, previewed, created):
        assert message in str(error.value)
