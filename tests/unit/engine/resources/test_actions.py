"""The resource state table, its checker, hooks/restrictions lookup and secret masking."""

import types

import pytest

from hearth.engine.resources import actions as resource_actions
from hearth.engine.resources import shown
from hearth.engine.template.environment import Environment


def test_allowed_transitions_pass():
    for old, new in [(("INIT", "COMPLETE"), ("CREATE", "IN_PROGRESS")),
                     (("CREATE", "FAILED"), ("CREATE", "IN_PROGRESS")),
                     (("CREATE", "IN_PROGRESS"), ("DELETE", "IN_PROGRESS")),
                     (("SUSPEND", "COMPLETE"), ("RESUME", "IN_PROGRESS"))]:
        resource_actions.check_transition("r", old, new)


@pytest.mark.parametrize("old,new", [
    (("INIT", "COMPLETE"), ("UPDATE", "IN_PROGRESS")),
    (("CREATE", "COMPLETE"), ("RESUME", "IN_PROGRESS")),
    (("DELETE", "COMPLETE"), ("SUSPEND", "IN_PROGRESS")),
])
def test_forbidden_transitions_name_the_resource(old, new):
    with pytest.raises(resource_actions.InvalidResourceTransition) as error:
        resource_actions.check_transition("web", old, new)
    assert str(error.value) == (
        f"Resource web cannot go from {'_'.join(old)} to {'_'.join(new)}.")


def resource_with_env(text: str, name: str = "web"):
    import yaml
    env = Environment.from_dict(yaml.safe_load(text))
    return types.SimpleNamespace(name=name, stack=types.SimpleNamespace(env=env))


def test_hooks_and_restrictions_come_from_the_environment_registry():
    resource = resource_with_env(
        "resource_registry:\n  resources:\n    web:\n      hooks: [pre-create]\n"
        "      restricted_actions: replace\n")
    assert resource_actions.has_hook(resource, "pre-create")
    assert not resource_actions.has_hook(resource, "pre-delete")
    assert resource_actions.restricted(resource, "replace")
    assert not resource_actions.restricted(resource, "update")


def test_no_environment_means_no_hooks():
    resource = types.SimpleNamespace(name="web", stack=types.SimpleNamespace(env=None))
    assert not resource_actions.has_hook(resource, "pre-create")


def test_mask_hides_secrets_at_any_depth():
    value = {"a": "x-s3cret-y", "b": ["s3cret", 1], "c": "plain"}
    assert shown.mask(value, ["s3cret", ""]) == {
        "a": "******", "b": ["******", 1], "c": "plain"}
    assert shown.mask(value, []) is value
