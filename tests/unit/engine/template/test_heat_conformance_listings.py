"""Template version and function listings, compared with real Heat's answers.

The expected values in ``heat_answers/`` were recorded from OpenStack Heat
27.0.1 (``EngineService.list_template_versions`` and
``list_template_functions`` with and without condition functions).
"""

import json
import pathlib

import pytest

from hearth.engine.template import versions

ANSWERS = pathlib.Path(__file__).parent / "heat_answers"
HEAT_FUNCTIONS = json.loads((ANSWERS / "template_functions.json").read_text())
HEAT_VERSIONS = json.loads((ANSWERS / "template_versions.json").read_text())


@pytest.mark.parametrize("listing", sorted(HEAT_FUNCTIONS))
def test_function_list_is_heats(listing):
    name, _, conditions = listing.partition("|")
    rows = versions.find_version(name).function_list(with_condition_functions=bool(conditions))
    assert rows == HEAT_FUNCTIONS[listing]


def test_version_list_is_heats():
    rows = [version.as_listing() for version in versions.all_versions()]
    assert rows == HEAT_VERSIONS
