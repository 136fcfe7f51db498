"""A stack of Hearth::Cloud::Server on libcloud's Dummy, driven by stackctl subprocesses."""

import json

import pytest

from tests.fixtures.clouds import DUMMY_PROFILES, DUMMY_PROVIDERS, hearth_conf, write_cloud_config
from tests.functional.stackctl_process import run

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  size: {type: string, default: Small}
  image: {type: string, default: Ubuntu 9.10}
  db_image: {type: string, default: Ubuntu 9.10}
  db_name: {type: string, default: the-db}
resources:
  web:
    type: Hearth::Cloud::Server
    properties:
      profile: web
      size: {get_param: size}
      image: {get_param: image}
  db:
    type: Hearth::Cloud::Server
    properties:
      provider: my-dummy
      image: {get_param: db_image}
      size: Small
      name: {get_param: db_name}
outputs:
  web_ip: {value: {get_attr: [web, public_ips, 0]}}
  web_state: {value: {get_attr: [web, state]}}
  db_id: {value: {get_attr: [db, id]}}
"""


@pytest.mark.slow
class TestServerStack:
    """One stack through create, suspend, resume, update (in place, replace), check, delete."""

    @pytest.fixture
    def stackctl(self, hearth_home, tmp_path):
        cloud_dir = write_cloud_config(tmp_path / "cloud", DUMMY_PROVIDERS, DUMMY_PROFILES)
        config = hearth_conf(tmp_path / "hearth.conf", cloud_dir)
        (tmp_path / "servers.yaml").write_text(TEMPLATE)

        def call(*args):
            args = [str(tmp_path / "servers.yaml") if a == "TEMPLATE" else a for a in args]
            done = run(hearth_home, *args, config=config, timeout=120)
            assert "Traceback" not in done.stderr, done.stderr
            return done
        return call

    @staticmethod
    def nodes(stackctl):
        listed = json.loads(stackctl("cloud-nodes", "--format", "json").stdout)
        return listed["my-dummy"]["libcloud"]

    @staticmethod
    def outputs(stackctl, name):
        shown = json.loads(stackctl("stack-show", name, "--format", "json").stdout)
        return {o["output_key"]: o["output_value"] for o in shown["outputs"]}

    def test_life_cycle(self, stackctl):
        created = stackctl("stack-create", "-f", "TEMPLATE", "st")
        assert created.returncode == 0, created.stdout + created.stderr
        assert "Stack st CREATE_COMPLETE" in created.stdout
        nodes = self.nodes(stackctl)
        web_name = next(name for name in nodes if name.startswith("st-web-"))
        assert sorted(nodes) == sorted([web_name, "the-db"])
        assert len(web_name) == len("st-web-") + 12
        for stage in ("creating", "requesting", "querying", "created"):
            assert f"[web]: CREATE_IN_PROGRESS  Cloud node {web_name}: {stage}" in created.stdout
        outputs = self.outputs(stackctl, "st")
        assert outputs["web_ip"] == nodes[web_name]["public_ips"][0]
        assert outputs["web_state"] == "RUNNING"
        assert outputs["db_id"] == nodes["the-db"]["id"]

        assert "SUSPEND_COMPLETE" in stackctl("stack-suspend", "st").stdout
        assert {n["state"] for n in self.nodes(stackctl).values()} == {"STOPPED"}
        assert "RESUME_COMPLETE" in stackctl("stack-resume", "st").stdout
        assert {n["state"] for n in self.nodes(stackctl).values()} == {"RUNNING"}

        resized = stackctl("stack-update", "-f", "TEMPLATE", "-P", "size=Big", "st")
        assert "Stack st UPDATE_COMPLETE" in resized.stdout, resized.stdout + resized.stderr
        nodes = self.nodes(stackctl)
        assert nodes[web_name]["size"] == "Big"
        web_id = nodes[web_name]["id"]

        replaced = stackctl("stack-update", "-f", "TEMPLATE", "-P", "size=Big",
                            "-P", "image=Slackware 4", "st")
        assert "Stack st UPDATE_COMPLETE" in replaced.stdout, replaced.stdout + replaced.stderr
        nodes = self.nodes(stackctl)
        new_web = next(name for name in nodes if name.startswith("st-web-"))
        assert sorted(nodes) == sorted([new_web, "the-db"]) and new_web != web_name
        assert nodes[new_web]["image"] == "Slackware 4" and nodes[new_web]["id"] != web_id
        assert nodes[new_web]["size"] == "Big"

        # a named server is replaced too: the Dummy driver cannot rename a node, so
        # the original is destroyed before its replacement takes the name
        db_id = nodes["the-db"]["id"]
        new_db = stackctl("stack-update", "-f", "TEMPLATE", "-P", "size=Big",
                          "-P", "image=Slackware 4", "-P", "db_image=Slackware 4", "st")
        assert "Stack st UPDATE_COMPLETE" in new_db.stdout, new_db.stdout + new_db.stderr
        db = self.nodes(stackctl)["the-db"]
        assert db["image"] == "Slackware 4" and db["id"] != db_id
        # a name another node holds is refused: the rollback keeps the original node
        assert stackctl("cloud-create", "-p", "base", "squatter").returncode == 0
        clash = stackctl("stack-update", "-f", "TEMPLATE", "-P", "size=Big",
                         "-P", "image=Slackware 4", "-P", "db_image=Slackware 4",
                         "-P", "db_name=squatter", "st")
        assert "A node named squatter already exists on my-dummy:libcloud." in clash.stdout
        assert "Stack st ROLLBACK_COMPLETE" in clash.stdout, clash.stdout
        nodes = self.nodes(stackctl)
        assert nodes["the-db"]["id"] == db["id"] and "squatter" in nodes
        stackctl("cloud-destroy", "squatter", "--yes")

        stackctl("stack-update", "-f", "TEMPLATE", "-P", "size=Big",
                 "-P", "image=Slackware 4", "st")
        assert "Stack st CHECK_COMPLETE" in stackctl("stack-check", "st").stdout
        stackctl("cloud-action", "stop", "the-db")
        failed = stackctl("stack-check", "st")
        assert "[db]: CHECK_FAILED  ResourceInError: resources.db: Went to status STOPPED " \
               "due to \"state is STOPPED, expected RUNNING\"" in failed.stdout, failed.stdout

        stackctl("cloud-destroy", "the-db", "--yes")  # a node already gone deletes fine
        deleted = stackctl("stack-delete", "-y", "st")
        assert "Stack st DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
        assert self.nodes(stackctl) == {}


@pytest.mark.slow
def test_unknown_profile_fails_validation_and_creates_nothing(hearth_home, tmp_path):
    cloud_dir = write_cloud_config(tmp_path / "cloud", DUMMY_PROVIDERS, DUMMY_PROFILES)
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir)
    (tmp_path / "bad.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  web:\n"
        "    type: Hearth::Cloud::Server\n    properties: {profile: wbe}\n")
    done = run(hearth_home, "stack-create", "-f", str(tmp_path / "bad.yaml"), "bad",
               config=config)
    assert done.returncode == 1
    assert "resources.web.properties.profile: Unknown cloud profile 'wbe' (configured: " \
           "base, web). Did you mean \"web\"?" in done.stderr, done.stderr
    assert "bad" not in run(hearth_home, "stack-list", config=config).stdout
    both = run(hearth_home, "template-validate", "-f", str(tmp_path / "bad.yaml"),
               config=config)
    assert both.returncode == 1 and "Unknown cloud profile 'wbe'" in both.stderr
