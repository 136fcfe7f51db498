"""stackctl's snapshot, restore, abandon and adopt commands as a user runs them (subprocess).

One HEARTH_HOME for the module, with Test::Disk (``keeping_plugins``) and
abandon/adopt enabled in its configuration; the disk's ledger shows what
happened to the "physical" resources.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.functional import stackctl_process

PLUGINS = os.path.join(os.path.dirname(__file__), "keeping_plugins")


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    root = tmp_path_factory.mktemp("keeping-cli")
    config = root / "hearth.conf"
    config.write_text(f"[DEFAULT]\nplugin_dirs = {PLUGINS}\nenable_stack_abandon = true\n"
                      "enable_stack_adopt = true\n")
    ledger = root / "ledger"
    ledger.write_text("")

    def template(size: int) -> str:
        path = root / f"disk{size}.yaml"
        path.write_text("heat_template_version: 2021-04-16\nresources:\n"
                        f"  a: {{type: Test::Disk, properties: {{size: {size}, "
                        f"ledger: {ledger}}}}}\n"
                        "outputs:\n  size: {value: {get_attr: [a, size]}}\n")
        return str(path)

    def run(*args, code=0):
        done = stackctl_process.run(root / "home", *args, config=config)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        return done

    run.template, run.ledger, run.root = template, ledger, root
    return run


@pytest.mark.slow
def test_snapshot_commands_and_restore(cli):
    cli("stack-create", "-f", cli.template(2), "kept")
    taken = json.loads(cli("stack-snapshot", "--name", "one", "kept").stdout)
    assert (taken["name"], taken["action"], taken["status"]) == ("one", "CREATE", "COMPLETE")
    assert taken["data"]["resources"]["a"]["resource_data"] == {"backup": "2"}
    table = cli("snapshot-list", "kept").stdout.splitlines()
    cells = [[cell.strip() for cell in line.split("|")[1:-1]] for line in table[1:4:2]]
    assert cells == [["id", "name", "action", "status", "status_reason", "creation_time"],
                     [taken["id"], "one", "CREATE", "COMPLETE",
                      "Stack SNAPSHOT completed successfully", taken["creation_time"]]]
    shown = json.loads(cli("snapshot-show", "kept", taken["id"]).stdout)
    assert shown["snapshot"]["id"] == taken["id"]

    cli("stack-update", "-f", cli.template(9), "kept")
    restored = cli("stack-restore", "kept", taken["id"]).stdout
    assert "Stack kept RESTORE_COMPLETE" in restored
    output = json.loads(cli("output-show", "kept", "size", "--format", "json").stdout)
    assert output["output_value"] == 2

    deleted = cli("snapshot-delete", "-y", "kept", taken["id"]).stdout
    assert deleted.strip() == (f"Request to delete the snapshot {taken['id']} of the stack "
                               "kept has been accepted.")
    assert "delete_snapshot a 2" in cli.ledger.read_text().splitlines()
    missing = cli("snapshot-show", "kept", taken["id"], code=1)
    assert f"The Snapshot ({taken['id']}) could not be found." in missing.stderr


@pytest.mark.slow
def test_abandon_to_a_file_then_adopt(cli):
    cli("stack-create", "-f", cli.template(4), "leaving")
    data_file = cli.root / "leaving.json"
    cli("stack-abandon", "-O", str(data_file), "leaving")
    data = json.loads(data_file.read_text())
    physical = data["resources"]["a"]["resource_id"]
    assert physical.startswith("leaving-a-")
    cli("stack-show", "leaving", code=1)

    adopted = cli("stack-adopt", "-a", str(data_file), "arrived").stdout
    assert "Stack arrived ADOPT_COMPLETE" in adopted
    shown = json.loads(cli("resource-show", "arrived", "a", "--format", "json").stdout)
    assert (shown["physical_resource_id"], shown["resource_status"]) == (physical,
                                                                         "ADOPT_COMPLETE")
    assert cli.ledger.read_text().splitlines()[-1] == f"adopt a {physical}"
    empty = cli.root / "empty.json"
    empty.write_text("")
    refused = cli("stack-adopt", "-a", str(empty), "nothing", code=1)
    assert "Invalid adopt-file, no data!" in refused.stderr
