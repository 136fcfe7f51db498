"""An engine collects its young generation less often (``gc_young_threshold``)."""

import gc

import pytest

from hearth.engine.service.runtime import tune_garbage_collector


@pytest.fixture(autouse=True)
def restore_thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_the_young_threshold_is_set_and_the_older_ones_kept():
    gc.set_threshold(700, 10, 10)
    tune_garbage_collector(12345)
    assert gc.get_threshold() == (12345, 10, 10)


def test_zero_leaves_pythons_setting():
    gc.set_threshold(700, 10, 10)
    tune_garbage_collector(0)
    assert gc.get_threshold() == (700, 10, 10)


def test_an_engine_applies_the_configured_threshold(service, engine_options):
    from hearth.engine.service.runtime import EngineRuntime
    engine_options(gc_young_threshold=4321)
    EngineRuntime(service.db).stop()
    assert gc.get_threshold()[0] == 4321
