"""Heat's own functional tests, restated as data in scenarios/*.yaml, run on hearth-api.

One test per scenario, named ``<scenario file>-<scenario>``; the scenario file says which
Heat test module it restates and each scenario which Heat test.
"""

import pytest

from tests.heat_functional import runner

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("scenario", runner.all_scenarios())
def test_scenario(heat, scenario):
    runner.play(heat, scenario)
