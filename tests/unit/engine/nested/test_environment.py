"""A nested stack's environment: the parent's registry and defaults, its own parameters."""

from hearth.engine.nested.environment import child_environment, child_overrides
from hearth.engine.template.environment import Environment

PARENT = Environment.from_dict({
    "parameters": {"top": "only-the-parent"},
    "parameter_defaults": {"shared": "everywhere"},
    "resource_registry": {
        "My::Server": "file:///srv.yaml",
        "My::Alias": "OS::Heat::None",
        "resources": {
            "outer": {"inner": {"hooks": "pre-create"}, "hooks": "pre-delete"},
            "out*": {"other": {"restricted_actions": "replace"}},
            "elsewhere": {"inner": {"hooks": "pre-update"}},
        },
    },
})


def test_overrides_under_the_parent_resource_name_and_matching_patterns():
    overrides = child_overrides(PARENT.registry.resources, "outer")
    # the exact name's maps and the pattern's; the parent's own hooks stay with it
    assert overrides == {"inner": {"hooks": "pre-create"},
                         "other": {"restricted_actions": "replace"}}
    assert child_overrides(PARENT.registry.resources, "nothing") == {}


def test_child_keeps_registry_and_defaults_and_takes_its_own_parameters():
    child = child_environment(PARENT, {"size": 3}, "outer")
    assert child.params == {"size": 3}
    assert child.param_defaults == {"shared": "everywhere"}
    assert child.registry.resolve_type("My::Alias") == "OS::Heat::None"
    assert child.registry.hooks_for("inner") == ["pre-create"]
    assert child.registry.restricted_actions("other") == ["replace"]


def test_a_provider_template_child_drops_the_mapping_that_led_to_it():
    child = child_environment(PARENT, {}, "outer", removed_type="My::Server")
    assert child.registry.resolve_type("My::Server") == "My::Server"
    assert child_environment(None, {"a": 1}, "x").params == {"a": 1}
