"""Each driver through Salt Cloud's contract, in-process through the Cloud client."""

import pytest

from hearth import bus
from hearth.common import exception
from tests.fixtures.clouds import agent_processes, cloud_for

SIX_FIELDS = {"id", "image", "size", "state", "private_ips", "public_ips"}


@pytest.fixture
def cloud(driver_setup, hearth_home):
    return cloud_for(driver_setup.cloud_dir, hearth_home)


@pytest.fixture
def cloud_events():
    subscription = bus.subscribe("hearth/cloud/")
    yield subscription
    subscription.close()


def assert_agent_answers(setup, name, shown):
    """The local node is a live agent with its profile's grains, its key accepted."""
    master = setup.extra["master"]
    status = master.run([name], "grains.get", ["role"], target_type="list", timeout=5)
    assert status.returns[name]["return"] == "web"
    with master.client() as client:
        assert name in client.list_keys()["accepted"]
    assert shown["agent_id"] == name and shown["pid"]


def nodes_of(cloud, setup):
    return cloud.query("list_nodes")[setup.provider][setup.driver]


def test_create_list_show_stop_start_destroy(cloud, driver_setup, cloud_events):
    created = cloud.create(cloud.profile_vm(driver_setup.profile, "web-1"))
    assert created["name"] == "web-1" and created["state"] == "RUNNING"
    # deploy is off for remote drivers; a local node is an agent from the start
    assert created["deployed"] is (driver_setup.driver == "local")
    nodes = nodes_of(cloud, driver_setup)
    assert set(nodes["web-1"]) == SIX_FIELDS
    assert nodes["web-1"]["state"] == "RUNNING"
    assert nodes["web-1"]["private_ips"]
    # a local node has only the loopback address, which is not public
    assert bool(nodes["web-1"]["public_ips"]) is (driver_setup.driver != "local")
    assert all(isinstance(nodes["web-1"][k], list) for k in ("public_ips", "private_ips"))
    shown = cloud.call_action(f"{driver_setup.provider}", "show_instance", "web-1")
    assert shown["id"] == nodes["web-1"]["id"]
    if driver_setup.driver == "local":
        assert_agent_answers(driver_setup, "web-1", shown)
    cloud.run_action("stop", ["web-1"])
    assert nodes_of(cloud, driver_setup)["web-1"]["state"] == "STOPPED"
    cloud.run_action("start", ["web-1"])
    assert nodes_of(cloud, driver_setup)["web-1"]["state"] == "RUNNING"
    assert cloud.destroy(["web-1"]) == {driver_setup.provider: {driver_setup.driver:
                                                                {"web-1": True}}}
    assert "web-1" not in nodes_of(cloud, driver_setup)
    if driver_setup.driver == "local":
        assert not agent_processes(driver_setup.cloud_dir.parent)
        assert not list(driver_setup.cloud_dir.parent.glob("**/web-1"))
    stages = [e.tag for e in cloud_events.drain() if e.tag.startswith("hearth/cloud/web-1/")]
    created_stages = ("creating", "requesting", "querying", "created")
    assert [t for t in stages if t.rsplit("/", 1)[1] in created_stages] == [
        f"hearth/cloud/web-1/{s}" for s in created_stages]
    assert ("hearth/cloud/web-1/deploying" in stages) is (driver_setup.driver == "local")
    assert stages[-2:] == ["hearth/cloud/web-1/destroying", "hearth/cloud/web-1/destroyed"]


def test_no_secret_in_events_or_answers(cloud, driver_setup, cloud_events):
    created = cloud.create(cloud.profile_vm(driver_setup.profile, "web-2",
                                            {"password": "node-root-pw"}))
    answers = [created, cloud.query("list_nodes_full"), cloud.providers(),
               [e.data for e in cloud_events.drain()]]
    for secret in [*driver_setup.secrets, "node-root-pw"]:
        assert secret not in repr(answers)
    provider = cloud.providers()[driver_setup.provider][driver_setup.driver]
    assert provider.get("key", "******") == "******"


def test_resize_in_place_where_supported(cloud, driver_setup):
    cloud.create(cloud.profile_vm(driver_setup.profile, "web-3"))
    capabilities = cloud.call_function(driver_setup.provider, "capabilities")
    assert {"start", "stop"} <= set(capabilities)
    if "resize" not in capabilities:
        with pytest.raises(exception.CloudSystemExit) as error:
            cloud.run_action("resize", ["web-3"], {"size": "big"})
        assert str(error.value) == (f"The '{driver_setup.driver}' cloud driver (provider "
                                    f"{driver_setup.provider}) has no 'resize' function.")
        return
    cloud.run_action("resize", ["web-3"], {"size": driver_setup.size_after_resize})
    assert nodes_of(cloud, driver_setup)["web-3"]["size"] == driver_setup.size_after_resize


def test_list_nodes_full_and_select(cloud, driver_setup):
    cloud.create(cloud.profile_vm(driver_setup.profile, "web-4"))
    full = cloud.query("list_nodes_full")[driver_setup.provider][driver_setup.driver]["web-4"]
    assert set(full) >= SIX_FIELDS and full["name"] == "web-4"
    selected = cloud.query("list_nodes_select", ["id", "state"])
    assert selected[driver_setup.provider][driver_setup.driver]["web-4"] == {
        "id": full["id"], "state": "RUNNING"}


def test_avail_functions(cloud, driver_setup):
    images = cloud.call_function(driver_setup.provider, "avail_images",
                                 driver_setup.extra.get("image_filter"))
    assert driver_setup.image_name in [image["name"] for image in images.values()]
    # ec2's full list of instance types takes moto ~10 s: ask for two
    sizes = cloud.call_function(driver_setup.provider, "avail_sizes",
                                driver_setup.extra.get("size_filter"))
    assert {driver_setup.size_after_resize} <= set(sizes)
    locations = cloud.call_function(driver_setup.provider, "avail_locations")
    assert driver_setup.location_name in locations


@pytest.mark.parametrize(("call", "message"), [
    (lambda c, p: c.call_function(p, "show_instance"),
     "The show_instance action must be called with -a or --action."),
    (lambda c, p: c.call_function(p, "destroy"),
     "The destroy action must be called with -d, --destroy, -a or --action."),
    (lambda c, p: c.call_action(p, "avail_images", "x"),
     "The avail_images function must be called with -f or --function, or with the "
     "--list-images option"),
    (lambda c, p: c.call_action(p, "list_nodes", "x"),
     "The list_nodes function must be called with -f or --function."),
    (lambda c, p: c.call_function(p, "no_such_function"),
     None),
])
def test_wrong_calling_convention_is_a_clear_error(cloud, driver_setup, call, message):
    with pytest.raises(exception.CloudSystemExit) as error:
        call(cloud, driver_setup.provider)
    expected = message or (f"The '{driver_setup.driver}' cloud driver (provider "
                           f"{driver_setup.provider}) has no 'no_such_function' function.")
    assert str(error.value) == expected


def test_unknown_node_and_bad_image(cloud, driver_setup):
    with pytest.raises(exception.CloudNodeNotFound) as error:
        cloud.run_action("stop", ["nowhere"])
    assert str(error.value) == ("The Cloud node (nowhere in any configured cloud provider) "
                                "could not be found.")
    vm_ = cloud.profile_vm(driver_setup.profile, "bad-image", {"image": "no-such-image"})
    with pytest.raises(exception.HearthException, match="no-such-image"):
        cloud.create(vm_)
    assert "bad-image" not in cloud.query("list_nodes")[driver_setup.provider][
        driver_setup.driver]
