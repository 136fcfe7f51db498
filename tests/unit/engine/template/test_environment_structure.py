"""An environment of the wrong shape is refused, with its path and line, before use."""

import pytest

from hearth.common import exception
from hearth.engine.template.environment import Environment


@pytest.mark.parametrize("text, message", [
    ("parameters: text\n", "e.yaml:1: parameters: must be a map, not a string"),
    ("parameter_defaults: [1]\n", "e.yaml:1: parameter_defaults: must be a map, not a list"),
    ("parameters:\n  1: x\n",
     "e.yaml:2: parameters.1: names here must be strings, not a number (1)"),
    ("parameter_merge_strategies: merge\n",
     "e.yaml:1: parameter_merge_strategies: must be a map, not a string"),
    ("parameter_merge_strategies:\n  p: [merge]\n",
     "e.yaml:2: parameter_merge_strategies.p: must be a string, not a list"),
    ("encrypted_param_names: 3\n", "e.yaml:1: encrypted_param_names: must be a list, not a number"),
    ("event_sinks: text\n", "e.yaml:1: event_sinks: must be a list, not a string"),
    ("resource_registry:\n  1: My::Type\n",
     "e.yaml:2: resource_registry.1: names here must be strings, not a number (1)"),
    ("resource_registry:\n  My::Type: {x: 1}\n",
     "e.yaml:2: resource_registry.My::Type: a mapping must be a type name or a template, "
     "not a map"),
    ("resource_registry:\n  resources: [web]\n",
     "e.yaml:2: resource_registry.resources: must be a map or null, not a list"),
    ("resource_registry:\n  resources:\n    web: 3\n",
     "e.yaml:3: resource_registry.resources.web: resource overrides must be a map, not a number"),
    ("resource_registry:\n  resources:\n    web:\n      hooks: {pre-create: 1}\n",
     "e.yaml:4: resource_registry.resources.web.hooks: must be a string or a list or null, "
     "not a map"),
])
def test_wrong_shapes_are_refused_with_path_and_line(text, message):
    with pytest.raises(exception.InvalidEnvironment) as info:
        Environment.from_documents([("e.yaml", text)])
    assert str(info.value) == message


def test_a_mapping_document_is_checked_too():
    with pytest.raises(exception.InvalidEnvironment) as info:
        Environment.from_dict({"parameters": ["a"]})
    assert str(info.value) == "parameters: must be a map, not a list"
