"""Salt Cloud's configuration: providers, profiles, extends, lookups and their errors."""

import pytest

from hearth.clouds import config
from hearth.common import exception
from tests.fixtures.clouds import write_cloud_config


def test_providers_and_profiles_load_with_extends(dummy_cloud):
    opts = config.load_cloud_opts(str(dummy_cloud))
    assert opts["providers"] == {"my-dummy": {"libcloud": {
        "driver": "libcloud", "provider": "DUMMY", "key": "dummy-secret-key-1234"}}}
    assert opts["profiles"]["web"] == {"provider": "my-dummy", "image": "Ubuntu 9.10",
                                       "size": "Medium", "tags": {"role": "web"},
                                       "profile": "web"}


def test_extends_chains_merge_mappings_and_replace_lists(tmp_path):
    write_cloud_config(tmp_path, {"p": {"driver": "libcloud", "provider": "DUMMY"}}, {
        "a": {"provider": "p", "grains": {"x": 1, "y": 1}, "securitygroup": ["a", "b"]},
        "b": {"extends": "a", "grains": {"y": 2}},
        "c": {"extends": "b", "securitygroup": ["c"]}})
    profile = config.load_profiles(str(tmp_path))["c"]
    assert profile["grains"] == {"x": 1, "y": 2}
    assert profile["securitygroup"] == ["c"]


def test_provider_old_spelling_and_several_drivers_per_alias(tmp_path):
    write_cloud_config(tmp_path, {"multi": [{"provider": "libcloud", "x": 1},
                                            {"driver": "ec2", "id": "i", "key": "k"}]})
    providers = config.load_providers(str(tmp_path))
    assert sorted(providers["multi"]) == ["ec2", "libcloud"]
    with pytest.raises(exception.CloudConfigError) as error:
        config.split_provider("multi", providers)
    assert str(error.value) == ("Cloud provider 'multi' has several drivers (ec2, libcloud): "
                                "name one as 'multi:<driver>'")
    assert config.split_provider("multi:ec2", providers) == ("multi", "ec2")


@pytest.mark.parametrize(("providers", "profiles", "message"), [
    ({"p": {"key": "x"}}, {}, "provider 'p' names no driver (add 'driver: <name>')"),
    ({"p": {"driver": "libcloud"}}, {"w": {"image": "i"}},
     "profile 'w' names no provider (add 'provider: <alias>')"),
    ({"p": {"driver": "libcloud"}}, {"w": {"extends": "bse", "provider": "p"},
                                     "base": {"provider": "p"}},
     "profile 'w' extends unknown profile 'bse'. Did you mean \"base\"?"),
    ({"p": {"driver": "libcloud"}}, {"a": {"extends": "b"}, "b": {"extends": "a"}},
     "profiles extend each other in a cycle: a -> b -> a"),
])
def test_configuration_errors_name_the_file_and_the_entry(tmp_path, providers, profiles,
                                                          message):
    write_cloud_config(tmp_path, providers, profiles)
    with pytest.raises(exception.CloudConfigError) as error:
        config.load_cloud_opts(str(tmp_path))
    assert str(error.value).endswith(message)
    assert str(tmp_path) in str(error.value)


def test_bad_yaml_names_the_line(tmp_path):
    (tmp_path / "cloud.providers.d").mkdir()
    (tmp_path / "cloud.providers.d" / "bad.conf").write_text("p:\n  driver: [x\n")
    with pytest.raises(exception.CloudConfigError, match=r"bad.conf, line 3: not valid YAML"):
        config.load_providers(str(tmp_path))


def test_unknown_provider_suggests_the_close_one():
    with pytest.raises(exception.CloudConfigError) as error:
        config.split_provider("my-dumy", {"my-dummy": {"libcloud": {}}})
    assert str(error.value) == ("Unknown cloud provider 'my-dumy' (configured: my-dummy). "
                                "Did you mean \"my-dummy\"?")


def test_get_cloud_config_value_vm_over_profile_over_provider_over_global():
    opts = {"size": "global", "grains": {"a": 1},
            "providers": {"p": {"libcloud": {"size": "provider", "grains": {"b": 2}}}},
            "profiles": {"web": {"provider": "p", "size": "profile", "grains": {"c": 3}}}}
    vm_ = {"profile": "web", "driver": "p:libcloud", "grains": {"d": 4}}
    assert config.get_cloud_config_value("size", vm_, opts) == "profile"
    assert config.get_cloud_config_value("size", {**vm_, "size": "vm"}, opts) == "vm"
    assert config.get_cloud_config_value("grains", vm_, opts) == {"a": 1, "b": 2, "c": 3,
                                                                  "d": 4}
    assert config.get_cloud_config_value("missing", vm_, opts, default=7) == 7
    assert config.get_cloud_config_value("size", {}, opts, search_global=False) is None


def test_is_provider_configured_by_alias_or_by_driver(caplog):
    caplog.set_level("DEBUG", logger="hearth.clouds.config")
    opts = {"providers": {"a": {"ec2": {"id": "x", "key": "y"}}, "b": {"ec2": {"id": "x"}}}}
    assert config.is_provider_configured(opts, "a:ec2", ("id", "key")) == {"id": "x",
                                                                          "key": "y"}
    assert config.is_provider_configured(opts, "b:ec2", ("id", "key")) is False
    assert "cloud provider b:ec2 is missing the required option(s) key" in caplog.text
    assert config.is_provider_configured(opts, "ec2", ("id", "key")) == {"id": "x", "key": "y"}
    assert config.is_provider_configured(opts, "gce", ()) is False
