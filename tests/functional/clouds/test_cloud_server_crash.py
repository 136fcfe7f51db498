"""An engine killed in the middle of a server create leaves no orphan node.

The first engine is ``stackctl stack-create`` (embedded) on a Dummy node that
boots slowly: it is killed with SIGKILL once the node exists at the provider
but before the create finished (so the resource never recorded its id).  The
node is found again by its stack-unique name: the engine that takes the
create over adopts it, deleting the stack destroys it, and an update
replaces the server and destroys the orphan.
"""

import json
import time

import pytest

from tests.fixtures.clouds import hearth_conf, write_cloud_config
from tests.functional.stackctl_process import kill_engine, read_until, run, start

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  provider: {type: string, default: slow}
resources:
  server:
    type: Hearth::Cloud::Server
    properties: {provider: {get_param: provider}, image: Ubuntu 9.10, size: Small}
"""


@pytest.fixture
def killed_create(hearth_home, tmp_path):
    """Return stackctl(*args) after SIGKILLing a stack-create whose node is booting."""
    state_file = str(tmp_path / "dummy-nodes.json")
    cloud_dir = write_cloud_config(tmp_path / "cloud", {
        "slow": {"driver": "libcloud", "provider": "DUMMY", "state_file": state_file,
                 "boot_seconds": 60},
        "fast": {"driver": "libcloud", "provider": "DUMMY", "state_file": state_file}})
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir,
                         "[DEFAULT]\nengine_life_check_timeout = 0.5\n")
    template = tmp_path / "server.yaml"
    template.write_text(TEMPLATE)
    process = start(hearth_home, "stack-create", "-f", str(template), "doomed", config=config)
    try:
        read_until(process, "[server]: CREATE_IN_PROGRESS  Cloud node doomed-server-")
        read_until(process, ": querying")  # the node exists at the provider now
    finally:
        kill_engine(hearth_home, process)
    time.sleep(1.0)  # past the dead engine's life check

    def stackctl(*args):
        args = [str(template) if a == "TEMPLATE" else a for a in args]
        return run(hearth_home, *args, config=config, timeout=120)
    return stackctl


def nodes(stackctl):
    return json.loads(stackctl("cloud-nodes", "--format", "json").stdout)["fast"]["libcloud"]


@pytest.mark.slow
def test_delete_after_the_crash_destroys_the_orphan(killed_create):
    orphans = nodes(killed_create)
    assert len(orphans) == 1 and next(iter(orphans)).startswith("doomed-server-")
    events = killed_create("event-list", "doomed")  # another engine took the create over
    assert "Engine went down during stack CREATE" in events.stdout, events.stdout
    deleted = killed_create("stack-delete", "-y", "doomed")
    assert "Stack doomed DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    assert "Cloud node doomed-server-" in deleted.stdout  # found by its name
    assert nodes(killed_create) == {}


@pytest.mark.slow
def test_update_after_the_crash_replaces_the_server_and_destroys_the_orphan(killed_create):
    orphan, = nodes(killed_create)
    updated = killed_create("stack-update", "-f", "TEMPLATE", "-P", "provider=fast", "doomed")
    assert "Stack doomed UPDATE_COMPLETE" in updated.stdout, updated.stdout + updated.stderr
    remaining = nodes(killed_create)
    assert len(remaining) == 1 and orphan not in remaining
    assert next(iter(remaining.values()))["state"] == "RUNNING"
    deleted = killed_create("stack-delete", "-y", "doomed")
    assert "Stack doomed DELETE_COMPLETE" in deleted.stdout
    assert nodes(killed_create) == {}
