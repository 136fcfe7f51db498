"""Tests of ``stackctl template-validate`` (in-process, and one real subprocess)."""

import json
import pathlib
import subprocess
import sys

from hearth.cli import main, template_files

TEMPLATES = pathlib.Path(__file__).resolve().parents[3] / "templates"


def run(capsys, *argv):
    code = main.main(["template-validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output(capsys):
    code, out, err = run(capsys, "-f", str(TEMPLATES / "basics.yaml"), "--format", "json",
                         "-P", "length=20")
    assert code == 0 and err == ""
    result = json.loads(out)
    assert result["Parameters"]["length"]["Value"] == "20"
    assert result["ParameterGroups"][0]["label"] == "Naming"


def test_table_is_default(capsys):
    code, out, _ = run(capsys, "-f", str(TEMPLATES / "conditions.yaml"))
    assert code == 0
    assert out.splitlines()[1].split("|")[1].strip() == "Field"
    assert "| Description " in out


def test_environment_files_merge(capsys):
    code, out, _ = run(capsys, "-f", str(TEMPLATES / "basics.yaml"), "-e",
                       str(TEMPLATES / "env" / "demo_prod.yaml"), "--format", "json")
    result = json.loads(out)
    assert code == 0
    assert result["Parameters"]["prefix"]["Value"] == "prod"
    assert result["Parameters"]["length"]["Default"] == 32
    assert result["Environment"]["resource_registry"]["resources"] == {
        "extra": {"hooks": "pre-create"}}


def test_invalid_template_exits_1_with_located_message(capsys):
    path = str(TEMPLATES / "broken" / "misspelled_key.yaml")
    code, out, err = run(capsys, "-f", path)
    assert code == 1 and out == ""
    assert err == (f'ERROR: {path}:5: resources.web: "propertis" is not a valid keyword inside '
                   'a resource definition. Did you mean "properties"?\n')


def test_parameter_value_shown_not_checked(capsys):
    # As Heat 27.0.1's validate API: the value is echoed, constraints wait for stack-create.
    code, out, _ = run(capsys, "-f", str(TEMPLATES / "basics.yaml"), "-P", "length=4",
                       "--format", "json")
    assert code == 0
    assert json.loads(out)["Parameters"]["length"]["Value"] == "4"


def test_unknown_parameter(capsys):
    code, _, err = run(capsys, "-f", str(TEMPLATES / "basics.yaml"), "-P", "lenght=4")
    assert code == 1
    assert err == ('ERROR: The Parameter (lenght) was not defined in template. '
                   'Did you mean "length"?\n')


def test_missing_file(capsys):
    code, _, err = run(capsys, "-f", "/nonexistent/t.yaml")
    assert code == 1
    assert err == ("ERROR: Could not fetch contents for file:///nonexistent/t.yaml: "
                   "No such file or directory\n")


def test_gather_reads_files_and_provider_templates(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "child.yaml").write_text(
        "heat_template_version: 2021-04-16\nresources:\n  s:\n    type: OS::Heat::Value\n"
        "    properties: {value: {get_file: data.txt}}\n")
    (tmp_path / "lib" / "data.txt").write_text("hello")
    (tmp_path / "script.sh").write_text("echo hi")
    (tmp_path / "main.yaml").write_text(
        "heat_template_version: 2021-04-16\nresources:\n  c:\n    type: lib/child.yaml\n"
        "  v:\n    type: OS::Heat::Value\n    properties: {value: {get_file: script.sh}}\n")
    (tmp_path / "env.yaml").write_text("resource_registry:\n  My::Child: lib/child.yaml\n")
    request = template_files.gather(str(tmp_path / "main.yaml"), [str(tmp_path / "env.yaml")])
    base = f"file://{tmp_path}"
    assert request["template"]["resources"]["c"]["type"] == f"{base}/lib/child.yaml"
    assert request["template"]["resources"]["v"]["properties"]["value"] == {
        "get_file": f"{base}/script.sh"}
    files = request["files"]
    assert files[f"{base}/script.sh"] == "echo hi"
    assert files[f"{base}/lib/data.txt"] == "hello"
    child = json.loads(files[f"{base}/lib/child.yaml"])
    assert child["resources"]["s"]["properties"]["value"] == {"get_file": f"{base}/lib/data.txt"}
    env = json.loads(files[f"{base}/env.yaml"])
    assert env["resource_registry"]["My::Child"] == f"{base}/lib/child.yaml"
    assert request["environment_files"] == [f"{base}/env.yaml"]


def test_real_subprocess():
    stackctl = pathlib.Path(sys.executable).with_name("stackctl")
    done = subprocess.run([str(stackctl), "template-validate", "-f",
                           str(TEMPLATES / "basics.yaml"), "--format", "yaml"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Password length" in done.stdout
