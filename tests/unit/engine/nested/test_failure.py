"""A nested stack's failure, read into the parent resource's reason as Heat does."""

from types import SimpleNamespace

from hearth.common.exception import NestedStackFailure, ResourceFailure

PARENT = SimpleNamespace(name="outer")


def test_a_member_failure_joins_the_paths():
    failure = NestedStackFailure(
        "Resource CREATE failed: ValueError: resources.bad: Test Resource failed bad", "CREATE")
    assert (failure.error_type, failure.path, failure.reason) == (
        "ValueError", ["resources", "bad"], "Test Resource failed bad")
    assert str(ResourceFailure(failure, PARENT, "CREATE")) == (
        "ValueError: resources.outer.resources.bad: Test Resource failed bad")


def test_deeper_nesting_keeps_every_level_and_colons_in_the_message():
    reason = ("Resource UPDATE failed: KeyError: resources.mid.resources.leaf: a: b")
    assert str(ResourceFailure(NestedStackFailure(reason, "UPDATE"), PARENT, "UPDATE")) == (
        "KeyError: resources.outer.resources.mid.resources.leaf: a: b")


def test_another_reason_is_kept_whole():
    failure = NestedStackFailure("Stack CREATE cancelled", "CREATE")
    assert failure.error_type == "NestedStackFailure"
    assert str(ResourceFailure(failure, PARENT, "CREATE")) == (
        "resources.outer: Stack CREATE cancelled")


def test_a_reason_without_a_resource_path_is_kept_whole():
    reason = "Resource CHECK failed: bad: Resource CHECK failed: ValueError: resources.bad: x"
    failure = NestedStackFailure(reason, "CHECK")
    assert failure.error_type == "NestedStackFailure"
    assert str(ResourceFailure(failure, PARENT, "CHECK")) == f"resources.outer: {reason}"
