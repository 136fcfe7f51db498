"""The deploy extension point, and the server's create that adopts or refuses a named node."""

import pytest

from hearth import bus
from hearth.common import exception
from tests.fixtures.clouds import cloud_for
from tests.functional.clouds import deploy_hook


@pytest.fixture
def cloud(dummy_cloud, hearth_home):
    return cloud_for(dummy_cloud, hearth_home)


def test_deploy_runs_the_configured_hook(cloud):
    subscription = bus.subscribe("hearth/cloud/hooked/")
    try:
        node = cloud.create(cloud.profile_vm("web", "hooked", {
            "deploy": True, "deploy_hook": "tests.functional.clouds.deploy_hook:record"}))
        stages = [e.tag.rsplit("/", 1)[1] for e in subscription.drain()]
    finally:
        subscription.close()
    assert deploy_hook.CALLS[-1] == "hooked"
    assert (node["deployed"], node["hook"], node["host"]) == (True, "ran",
                                                              node["public_ips"][0])
    assert stages == ["creating", "requesting", "querying", "deploying", "created"]


@pytest.mark.parametrize(("settings", "message"), [
    ({"deploy": "yes", "deploy_hook": "nowhere"},
     "deploy_hook 'nowhere': expected 'package.module:function'"),
    ({"deploy": True, "ssh_port": "x"},
     "Deploying the agent of node deploy-1 failed at the settings stage: ssh_port must be a "
     "port number, not 'x'"),
])
def test_deploy_without_a_usable_hook_is_a_clear_error(cloud, settings, message):
    with pytest.raises(exception.HearthException) as error:
        cloud.create(cloud.profile_vm("web", "deploy-1", settings))
    assert str(error.value) == message


def test_a_stack_unique_name_is_adopted_and_a_chosen_one_refused(cloud):
    vm_ = cloud.profile_vm("web", "st-web-abcdefghijkl")
    first = cloud.create(vm_)
    adopted = cloud.create_or_adopt(vm_, adopt=True)
    assert (adopted["adopted"], adopted["id"]) == (True, first["id"])
    with pytest.raises(exception.CloudNodeExists) as error:
        cloud.create_or_adopt(vm_, adopt=False)
    assert str(error.value) == ("A node named st-web-abcdefghijkl already exists on "
                                "my-dummy:libcloud.")
    cloud.destroy_and_wait(vm_["driver"], vm_["name"], timeout=10)
    cloud.destroy_and_wait(vm_["driver"], vm_["name"], timeout=10)  # gone already: fine
    assert cloud.query()["my-dummy"]["libcloud"] == {}
