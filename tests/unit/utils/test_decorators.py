"""``depends``: names, booleans, commands, versions, fallbacks; enforced by the loader."""

import types

from hearth.utils.decorators import Dependencies, depends, resolve_depends, unmet_dependencies


def test_name_dependency_is_a_truthy_global():
    assert unmet_dependencies(Dependencies(("lib",)), {"lib": object()}) == []
    assert unmet_dependencies(Dependencies(("lib", "other")), {"lib": None}) == ["lib", "other"]


def test_boolean_dependencies():
    assert unmet_dependencies(Dependencies((True,)), {}) == []
    assert unmet_dependencies(Dependencies((False,)), {}) == ["False"]


def test_version_dependency():
    lib = types.SimpleNamespace(__version__="2.10.1")
    assert unmet_dependencies(Dependencies(("lib",), version="2.9"), {"lib": lib}) == []
    assert unmet_dependencies(Dependencies(("lib",), version="2.11"), {"lib": lib}) == ["lib"]


def test_command_dependencies():
    assert unmet_dependencies(Dependencies(("true",), retcode=0), {}) == []
    assert unmet_dependencies(Dependencies(("false",), retcode=0), {}) == ["false"]
    assert unmet_dependencies(Dependencies(("false",), nonzero_retcode=True), {}) == []
    assert unmet_dependencies(Dependencies(("no-such-cmd-x",), retcode=0), {}) == ["no-such-cmd-x"]


def test_resolve_returns_function_fallback_or_none():
    def fallback():
        return "fb"

    @depends("lib", fallback_function=fallback)
    def with_fallback():
        return "real"

    @depends("lib")
    def removed():
        return "real"

    assert resolve_depends(with_fallback, {"lib": 1}) is with_fallback
    assert resolve_depends(with_fallback, {}) is fallback
    assert resolve_depends(removed, {}) is None
