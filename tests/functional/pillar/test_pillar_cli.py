"""stackctl pillar-show / pillar-top / call pillar.* as subprocesses, without a master."""

from __future__ import annotations

import json

from tests.functional import stackctl_process

PLACEHOLDER = "**********"


def stackctl(site, *args, timeout=120):
    return stackctl_process.run(site.home, *args, config=site.config, timeout=timeout)


def test_pillar_show_local_masks_unless_unmask(pillar_site):
    done = stackctl(pillar_site, "pillar-show", "db1", "--local", "--grains", '{"role": "db"}',
                    "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"db1": {
        "db": {"host": PLACEHOLDER, "password": PLACEHOLDER, "port": PLACEHOLDER,
               "replicas": PLACEHOLDER}, "app": {"name": PLACEHOLDER}}}
    assert done.stderr == ("Values are masked (**********, as Salt masks pillar output); add "
                           "--unmask to show them, or set [pillar] mask_output = false.\n")
    done = stackctl(pillar_site, "pillar-show", "db1", "--local", "--grains", "role: db",
                    "--unmask", "--format", "json", "--pillar", '{"db": {"port": 6432}}')
    assert json.loads(done.stdout) == {"db1": {
        "db": {"host": "db.internal", "password": "s3cret-db", "port": 6432, "replicas": 2},
        "app": {"name": "db1"}}}
    assert done.stderr == ""
    nested = stackctl(pillar_site, "pillar-show", "web1", "--local", "--grains", "{}")
    assert nested.stdout.splitlines()[:4] == ["web1:", "    ----------", "    db:",
                                              "        ----------"]


def test_pillar_top_local(pillar_site):
    done = stackctl(pillar_site, "pillar-top", "db1", "--local", "--grains", '{"role": "db"}',
                    "--format", "json")
    assert done.returncode == 0, done.stderr
    roots = pillar_site.roots
    assert json.loads(done.stdout) == {"base": [
        {"target": "*", "match": "compound", "sls": ["common"],
         "files": {"common": f"{roots}/common.sls"}},
        {"target": "G@role:db", "match": "compound", "sls": ["database"],
         "files": {"database": f"{roots}/database.sls"}}]}


def test_errors_are_shown_and_fail_the_command(pillar_site, tmp_path):
    pillar_site.write("common.sls", "db: {{ nope.attr }}\n")
    (tmp_path / "bad.json").write_text("not json")
    pillar_site.ext_pillar({"cmd_json": f"cat {tmp_path}/bad.json"})
    done = stackctl(pillar_site, "pillar-show", "db1", "--local", "--grains", '{"role": "db"}',
                    "--format", "json")
    assert done.returncode == 1
    errors = json.loads(done.stdout)["db1"]["_errors"]
    assert errors[0].startswith(f"Rendering SLS 'common' ({pillar_site.roots}/common.sls) "
                                "failed: Jinja error: 'nope' is undefined")
    assert errors[1].startswith("Failed to load ext_pillar cmd_json (ext_pillar entry 1): "
                                f"JSON data from 'cat {tmp_path}/bad.json' failed to parse")
    assert [line for line in done.stderr.splitlines() if line.startswith("ERROR: ")] == [
        f"ERROR: {error}" for error in errors]
    assert "Traceback" not in done.stderr
    # A consumer of the pillar fails with the same messages.
    call = stackctl(pillar_site, "call", "pillar.get", "db:host")
    assert call.returncode == 1
    assert "Pillar has errors: Rendering SLS 'common'" in call.stderr


def test_local_options_need_local(pillar_site):
    done = stackctl(pillar_site, "pillar-show", "db1", "--grains", "{}", "--pillar", "{}")
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        "--grains, --pillar only apply with --local (the master compiles with what it holds "
        "true about the agent and its own configuration)")


def test_without_a_master_the_error_points_at_local(pillar_site):
    done = stackctl(pillar_site, "pillar-show", "db1")
    assert done.returncode == 1
    assert done.stderr.strip().endswith("No hearth-master is set up for this host's "
                                        "configuration; use --local to compile here.")


def test_bad_grains_are_named(pillar_site):
    done = stackctl(pillar_site, "pillar-show", "db1", "--local", "--grains", "[1, 2]")
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        "--grains must be a JSON or YAML mapping of grain names to values")
    assert "Traceback" not in done.stderr


def test_call_pillar_functions_locally(pillar_site):
    done = stackctl(pillar_site, "call", "pillar.get", "app:name", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"local": PLACEHOLDER}
    done = stackctl(pillar_site, "call", "pillar.get", "db", "unmask=True", "--format", "json")
    assert json.loads(done.stdout)["local"]["host"] == "db.internal"
    done = stackctl(pillar_site, "call", "pillar.get", "nope:x", "default=fallback",
                    "--format", "json")
    assert json.loads(done.stdout) == {"local": "fallback"}
    done = stackctl(pillar_site, "call", "pillar.items", "unmask=True", "--format", "json",
                    'pillar={"extra": 1}')
    assert json.loads(done.stdout)["local"]["extra"] == 1


def test_hearth_stack_outputs_feed_pillar(pillar_site, tmp_path):
    template = tmp_path / "net.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  cidr: {type: string, default: 10.0.0.0/24}\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: cidr}}}\n"
        "outputs:\n  cidr: {value: {get_attr: [v, value]}}\n  gateway: {value: 10.0.0.1}\n")
    created = stackctl(pillar_site, "stack-create", "-f", str(template), "net")
    assert created.returncode == 0, created.stderr
    pillar_site.ext_pillar({"hearth_stack": {"stacks": ["net"]}},
                           {"hearth_stack": {"stacks": "missing", "key": "other"}})
    done = stackctl(pillar_site, "pillar-show", "web1", "--local", "--grains", "{}",
                    "--unmask", "--format", "json")
    pillar = json.loads(done.stdout)["web1"]
    assert pillar["stacks"] == {"net": {"cidr": "10.0.0.0/24", "gateway": "10.0.0.1"}}
    assert pillar["_errors"] == [
        "Failed to load ext_pillar hearth_stack (ext_pillar entry 2): hearth_stack: The Stack "
        "(missing) could not be found. (project admin)"]
    assert done.returncode == 1


def test_hearth_stack_feeds_only_agents_the_project_may_read(pillar_site, tmp_path):
    """A stack named after an agent ('%s') is not read for an agent outside its project's ACL."""
    template = tmp_path / "web1.yaml"
    template.write_text("heat_template_version: 2018-08-31\n"
                        "outputs:\n  password: {value: s3cret-of-admin}\n")
    assert stackctl(pillar_site, "stack-create", "-f", str(template), "web1").returncode == 0
    acl = tmp_path / "acl.yaml"
    acl.write_text("admin:\n  - 'db*':\n      - pillar.items\n")
    with open(pillar_site.config, "a", encoding="utf-8") as config:
        config.write(f"[api]\npublisher_acl_file = {acl}\n")
    pillar_site.ext_pillar({"hearth_stack": {"stacks": ["%s"]}})
    done = stackctl(pillar_site, "pillar-show", "web1", "--local", "--grains", "{}",
                    "--unmask", "--format", "json")
    pillar = json.loads(done.stdout)["web1"]
    assert "s3cret-of-admin" not in done.stdout and "stacks" not in pillar
    assert pillar["_errors"] == [
        "Failed to load ext_pillar hearth_stack (ext_pillar entry 1): hearth_stack: project "
        "admin may not read the pillar of agent web1: reading an agent's pillar needs the "
        "right to run pillar.items on it: its publisher_acl allows pillar.items only on "
        "agents selected by 'db*', and this target also selects web1."]


def test_given_grains_carry_the_agent_id(pillar_site, tmp_path):
    pillar_site.write("common.sls", "who: {{ grains['id'] }}\nrole: {{ grains['role'] }}\n")
    done = stackctl(pillar_site, "pillar-show", "web7", "--local", "--grains", '{"role": "web"}',
                    "--unmask", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"web7": {"who": "web7", "role": "web"}}
    (tmp_path / "grains.yaml").write_text("role: db\nid: named-in-file\n")
    done = stackctl(pillar_site, "pillar-show", "db7", "--local", "--grains-file",
                    str(tmp_path / "grains.yaml"), "--unmask", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"db7": {"who": "named-in-file", "role": "db", "db": {
        "replicas": 2}}}
