"""stackctl cloud-* as subprocesses: nodes persist across processes, errors are one clear line."""

import json
from pathlib import Path

import pytest

import hearth.clouds.drivers
from tests.fixtures.clouds import hearth_conf, write_cloud_config
from tests.functional.stackctl_process import run


def builtin_drivers() -> str:
    """Return the names of the built-in drivers, as an error lists them."""
    folder = Path(hearth.clouds.drivers.__path__[0])
    return ", ".join(sorted(path.stem for path in folder.glob("[!_]*.py")))


@pytest.fixture
def stackctl(driver_setup, hearth_home, tmp_path):
    """Return ``stackctl(*args)`` using the driver's cloud config; fails on a traceback."""
    config = hearth_conf(tmp_path / "hearth.conf", driver_setup.cloud_dir)

    def call(*args):
        done = run(hearth_home, *args, config=config, timeout=120)
        assert "Traceback" not in done.stderr, done.stderr
        return done
    return call


@pytest.mark.slow
def test_create_list_act_destroy_across_processes(stackctl, driver_setup):
    created = stackctl("cloud-create", "-p", driver_setup.profile, "cli-1", "cli-2",
                       "--format", "json")
    assert created.returncode == 0, created.stderr
    assert sorted(json.loads(created.stdout)) == ["cli-1", "cli-2"]
    assert "hearth/cloud/cli-1/created" in created.stderr
    listed = json.loads(stackctl("cloud-nodes", "--format", "json").stdout)
    nodes = listed[driver_setup.provider][driver_setup.driver]
    assert {nodes["cli-1"]["state"], nodes["cli-2"]["state"]} == {"RUNNING"}
    stopped = stackctl("cloud-action", "stop", "cli-1", "--format", "json")
    assert stopped.returncode == 0, stopped.stderr
    selected = json.loads(stackctl("cloud-nodes", "--select", "state", "--format",
                                   "json").stdout)
    assert selected[driver_setup.provider][driver_setup.driver]["cli-1"] == {"state": "STOPPED"}
    table = stackctl("cloud-nodes").stdout
    assert "cli-2" in table and "RUNNING" in table
    refused = stackctl("cloud-destroy", "cli-1", "cli-2")
    assert (refused.returncode, refused.stderr.strip()) == (
        2, "ERROR: cloud-destroy destroys cli-1, cli-2 for good: add --yes to confirm.")
    destroyed = stackctl("cloud-destroy", "cli-1", "cli-2", "--yes", "--format", "json")
    assert json.loads(destroyed.stdout) == {driver_setup.provider: {driver_setup.driver: {
        "cli-1": True, "cli-2": True}}}
    after = json.loads(stackctl("cloud-nodes", "--format", "json").stdout)
    assert after[driver_setup.provider][driver_setup.driver] == {}
    for secret in driver_setup.secrets:
        assert secret not in created.stdout + created.stderr + stackctl(
            "cloud-providers", "--format", "json").stdout


@pytest.mark.parametrize(("args", "message"), [
    (("cloud-function", "show_instance", "{provider}"),
     "ERROR: The show_instance action must be called with -a or --action."),
    (("cloud-action", "avail_images", "x1"),
     "ERROR: The Cloud node (x1 in any configured cloud provider) could not be found."),
    (("cloud-create", "-p", "wbe", "x1"),
     "ERROR: Unknown cloud profile 'wbe' (configured: {profiles}). Did you mean \"web\"?"),
    (("cloud-images", "{provider}x"),
     "ERROR: Unknown cloud provider '{provider}x' (configured: {provider}). "
     "Did you mean \"{provider}\"?"),
])
def test_errors_are_one_clear_line(stackctl, driver_setup, args, message):
    done = stackctl(*[a.format(provider=driver_setup.provider) for a in args])
    assert done.returncode == 1
    profiles = "base, web" if driver_setup.driver == "libcloud" else "web"
    assert done.stderr.strip().splitlines()[-1] == message.format(
        provider=driver_setup.provider, profiles=profiles)


def test_functions_and_listings(stackctl, driver_setup):
    sizes = stackctl(  # ec2's full list of instance types takes moto ~10 s: ask for two
        "cloud-function", "avail_sizes", driver_setup.provider, "sizes=t2.micro,t2.small",
        "--format", "json") if driver_setup.driver == "ec2" else stackctl(
        "cloud-sizes", driver_setup.provider, "--format", "json")
    assert sizes.returncode == 0, sizes.stderr
    listing = json.loads(sizes.stdout)[driver_setup.provider][driver_setup.driver]
    assert driver_setup.size_after_resize in listing
    profiles = stackctl("cloud-profiles", "--format", "json")
    assert json.loads(profiles.stdout)["web"]["provider"] == driver_setup.provider
    locations = stackctl("cloud-locations", driver_setup.provider, "--format", "yaml")
    assert driver_setup.location_name in locations.stdout


def test_refused_drivers_are_listed_with_their_reason(hearth_home, tmp_path):
    cloud_dir = write_cloud_config(tmp_path / "cloud", {
        "good": {"driver": "libcloud", "provider": "DUMMY"},
        "typo": {"driver": "libcloud", "provider": "DUMMMY"},
        "nokey": {"driver": "ec2", "id": "AKIA"},
        "nodriver": {"driver": "azure-classic"}})
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir)
    done = run(hearth_home, "cloud-providers", "--format", "json", config=config)
    rows = {row["provider"]: (row["status"], row["reason"]) for row in json.loads(done.stdout)}
    assert rows == {
        "good:libcloud": ("loaded", ""),
        "typo:libcloud": ("refused", "'libcloud' __virtual__ returned False: 'DUMMMY' is not "
                                     "a libcloud compute provider. Did you mean \"DUMMY\"?"),
        "nokey:ec2": ("refused", "'ec2' __virtual__ returned False: the provider nokey:ec2 is "
                                 "not configured: 'id' is set without 'key': give both, or "
                                 "neither to use boto3's credential chain (aws_profile, "
                                 "AWS_PROFILE, ~/.aws, SSO, instance roles)"),
        "nodriver:azure-classic": ("refused", "Cloud provider 'nodriver' names the driver "
                                              "'azure-classic', which no cloud driver module "
                                              f"provides (drivers: {builtin_drivers()})."),
    }
    nodes = run(hearth_home, "cloud-nodes", "--format", "json", config=config)
    assert json.loads(nodes.stdout) == {"good": {"libcloud": {}}}


MAP = """
web:
  - web-a: {requires: [db-a]}
  - web-b: {size: Big, requires: [db-a]}
base:
  - db-a
"""


def test_map_creates_in_requires_order_then_only_what_is_missing(hearth_home, tmp_path,
                                                                 dummy_cloud):
    config = hearth_conf(tmp_path / "hearth.conf", dummy_cloud)
    (tmp_path / "cloud.map").write_text(MAP)
    made = run(hearth_home, "cloud-map", "-m", str(tmp_path / "cloud.map"), "--parallel",
               "--format", "json", config=config)
    assert made.returncode == 0, made.stderr
    nodes = json.loads(made.stdout)
    assert sorted(nodes) == ["db-a", "web-a", "web-b"]
    assert (nodes["web-b"]["size"], nodes["web-a"]["size"]) == ("Big", "Medium")
    created = [line.split("/")[2] for line in made.stderr.splitlines()
               if line.endswith("/created: created instance")]
    assert created[0] == "db-a" and sorted(created[1:]) == ["web-a", "web-b"]
    again = run(hearth_home, "cloud-map", "-m", str(tmp_path / "cloud.map"), "--format",
                "json", config=config)
    assert json.loads(again.stdout) == dict.fromkeys(["db-a", "web-a", "web-b"],
                                                     {"exists": True})
    refused = run(hearth_home, "cloud-map", "-m", str(tmp_path / "cloud.map"), "--destroy",
                  config=config)
    assert refused.returncode == 2 and "add --yes to confirm" in refused.stderr
    gone = run(hearth_home, "cloud-map", "-m", str(tmp_path / "cloud.map"), "--destroy",
               "--yes", "--format", "json", config=config)
    assert json.loads(gone.stdout) == {"my-dummy": {"libcloud": dict.fromkeys(
        ["web-a", "web-b", "db-a"], True)}}
    destroyed = [line.split("/")[2] for line in gone.stderr.splitlines()
                 if line.endswith("/destroyed: destroyed instance")]
    assert destroyed[-1] == "db-a"


def test_a_missing_cloud_configuration_directory_is_said_not_listed_empty(hearth_home,
                                                                           tmp_path):
    config = tmp_path / "hearth.conf"
    config.write_text("[cloud]\nconfig_dir = clouds\n")   # taken from the file's directory
    for command in ("cloud-providers", "cloud-profiles", "cloud-nodes"):
        done = run(hearth_home, command, config=config)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == (
            f"ERROR: No cloud is configured: the cloud configuration directory "
            f"{tmp_path / 'clouds'} ([cloud] config_dir in {config}) does not exist. Write "
            "providers in its cloud.providers.d/*.conf and profiles in "
            "cloud.profiles.d/*.conf, or set [cloud] config_dir to the directory that has "
            "them.\n")
    (tmp_path / "clouds").mkdir()
    done = run(hearth_home, "cloud-profiles", config=config)
    assert done.returncode == 0 and "| profile | provider |" in done.stdout
    assert done.stderr == (f"No cloud profile is configured in {tmp_path / 'clouds'} "
                           "(cloud.profiles, cloud.profiles.d/*.conf).\n")
    default = run(hearth_home, "cloud-providers")
    assert default.returncode == 1
    assert f"{hearth_home / 'cloud'} ([cloud] config_dir, by default) does not exist" in \
        default.stderr
