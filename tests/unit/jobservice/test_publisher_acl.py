"""publisher_acl: Salt's shape and rules (re.match on functions, targeted agents ⊆ rule's)."""

import pytest

from hearth.agent.targeting import AgentFacts
from hearth.common import exception
from hearth.jobservice.publisher_acl import PublisherAcl

AGENTS = [AgentFacts("web1", {"role": "web"}), AgentFacts("web2", {"role": "web"}),
          AgentFacts("db1", {"role": "db"}), AgentFacts("db9", {"role": "db"})]

ACL = PublisherAcl.from_data({
    "proj-web": [
        "test.ping",
        {"web*": ["cmd.run", "pkg[.].*"]},
        {"G@role:db and not db9": "test.*"},
    ],
    "proj-*": [{"L@web1": ["grains.items"]}],
    "ops": [".*"],
})


@pytest.mark.parametrize(("project", "function", "targeted"), [
    ("proj-web", "test.ping", ["web1", "db1", "db9"]),   # a bare function: any agent
    ("proj-web", "test.pingpong", ["db9"]),              # re.match: anchored at the start only
    ("proj-web", "cmd.run", ["web1", "web2"]),
    ("proj-web", "pkg.install", ["web2"]),
    ("proj-web", "test.echo", ["db1"]),
    ("proj-web", "grains.items", ["web1"]),              # rules of every matching glob
    ("proj-x", "grains.items", ["web1"]),
    ("ops", "cmd.run_all", ["web1", "web2", "db1", "db9"]),
])
def test_allowed(project, function, targeted):
    ACL.check(project, function, targeted, AGENTS)


@pytest.mark.parametrize(("project", "function", "targeted", "message"), [
    ("proj-web", "cmd.run", ["web1", "db1"],
     "project proj-web may not run cmd.run on 'x' (glob): its publisher_acl allows cmd.run "
     "only on agents selected by 'web*', and this target also selects db1."),
    ("proj-web", "test.echo", ["db9"],
     "project proj-web may not run test.echo on 'x' (glob): its publisher_acl allows "
     "test.echo only on agents selected by 'G@role:db and not db9', and this target also "
     "selects db9."),
    ("proj-web", "file.remove", ["web1"],
     "project proj-web may not run file.remove on 'x' (glob): no publisher_acl rule of the "
     "project allows file.remove."),
    ("nobody", "test.ping", ["web1"],
     "project nobody may not run test.ping on 'x' (glob): no publisher_acl rule of the "
     "project allows test.ping."),
    ("proj-x", "grains.items", ["web2"],
     "project proj-x may not run grains.items on 'x' (glob): its publisher_acl allows "
     "grains.items only on agents selected by 'L@web1', and this target also selects web2."),
])
def test_refused_with_the_reason(project, function, targeted, message):
    with pytest.raises(exception.JobRefused) as caught:
        ACL.check(project, function, targeted, AGENTS, where="'x' (glob)")
    assert str(caught.value) == message
    assert caught.value.error_type == "Forbidden"
    assert (caught.value.kwargs["function"], caught.value.kwargs["target"]) == (
        function, "'x' (glob)")


def test_reading_a_pillar_needs_the_right_to_run_pillar_items():
    acl = PublisherAcl.from_data({"p": [{"web*": ["pillar.items"]}, "test.ping"]})
    acl.check_pillar_read("p", "web1", AGENTS)
    with pytest.raises(exception.JobRefused) as caught:
        acl.check_pillar_read("p", "db1", AGENTS)
    assert str(caught.value) == (
        "project p may not read the pillar of agent db1: reading an agent's pillar needs the "
        "right to run pillar.items on it: its publisher_acl allows pillar.items only on agents "
        "selected by 'web*', and this target also selects db1.")


@pytest.mark.parametrize(("data", "project", "function", "allowed"), [
    ({"admins": ["@wheel"]}, "admins", "key.delete", True),          # every wheel function
    ({"ops-*": [{"@wheel": ["key.list_all", "key.finger.*"]}]}, "ops-1", "key.finger_master",
     True),
    ({"ops-*": [{"@wheel": ["key.list_all"]}]}, "ops-1", "key.accept", False),
    ({"ops": [{"@wheel": "key.list_all"}]}, "ops", "key.list_all", True),  # one name alone
    ({"p": [".*", {"*": [".*"]}]}, "p", "key.list_all", False),  # publish rules grant no wheel
    ({"admins": ["@wheel"]}, "others", "key.list_all", False),
])
def test_wheel_functions_are_granted_by_wheel_entries_only(data, project, function, allowed):
    acl = PublisherAcl.from_data(data)
    if allowed:
        acl.check_wheel(project, function, "do it")
        return
    with pytest.raises(exception.JobRefused) as caught:
        acl.check_wheel(project, function, "do it")
    assert str(caught.value) == (
        f"project {project} may not do it: agent keys are the master operator's; no '@wheel' "
        f"entry of the project's publisher_acl grants {function}.")


def test_a_wheel_entry_is_no_publish_rule():
    acl = PublisherAcl.from_data({"p": ["@wheel", {"@wheel": ["key.list_all"]}]})
    assert acl.rules_for("p") == [] and acl.targetable("p", AGENTS) == []
    assert acl.refusal("p", "test.ping", ["web1"], AGENTS) is not None


@pytest.mark.parametrize(("data", "message"), [
    ({"p": [{"@wheel": [{"key.accept": {"args": ["web*"]}}]}]},
     "Invalid publisher_acl in acl.yaml: p, rule 1: the functions of @wheel must be a list of "
     "names (argument restrictions are not supported)"),
    ({"p": [{"@wheel": ["key.(list"]}]},
     "Invalid publisher_acl in acl.yaml: p, rule 1: bad function pattern 'key.(list': missing "
     "), unterminated subpattern at position 4"),
    (["x"], "Invalid publisher_acl in acl.yaml, top level: expected a map of project globs"),
    ({"p": "test.*"}, "Invalid publisher_acl in acl.yaml: p, rules: expected a list of rules"),
    ({"p": [{"web*": [{"cmd.run": {"args": ["ls"]}}]}]},
     "Invalid publisher_acl in acl.yaml: p, rule 1: the functions of target 'web*' must be a "
     "list of names (argument restrictions are not supported)"),
    ({"p": ["test.ping", {"a": ["x"], "b": ["y"]}]},
     "Invalid publisher_acl in acl.yaml: p, rule 2: expected a function pattern or a one-key "
     "map {target: [functions]}"),
    ({"p": ["test.(ping"]},
     "Invalid publisher_acl in acl.yaml: p, rule 1: bad function pattern 'test.(ping': missing "
     "), unterminated subpattern at position 5"),
])
def test_bad_configuration_is_named(data, message):
    with pytest.raises(exception.InvalidPublisherAcl) as caught:
        PublisherAcl.from_data(data, "acl.yaml")
    assert str(caught.value) == message


def test_from_file(tmp_path):
    path = tmp_path / "acl.yaml"
    path.write_text("proj:\n  - 'web*':\n      - test.*\n")
    acl = PublisherAcl.from_file(str(path))
    acl.check("proj", "test.ping", ["web2"], AGENTS)
    path.write_text("proj: [\n")
    with pytest.raises(exception.InvalidPublisherAcl) as caught:
        PublisherAcl.from_file(str(path))
    assert str(caught.value).startswith(f"Invalid publisher_acl in {path}, file: ")
