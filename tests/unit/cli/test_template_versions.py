"""Tests of stackctl template-version-list and template-function-list (the in-process catalog).

The same commands on the local engine and over ``--url``:
tests/functional/api/test_cli_http.py.
"""

import json

from hearth.cli.main import main


def test_template_version_list_json(capsys):
    assert main(["--in-process", "template-version-list", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 13
    assert {"version": "heat_template_version.2016-10-14", "type": "hot",
            "aliases": ["heat_template_version.newton"]} in rows
    assert rows[0] == {"version": "AWSTemplateFormatVersion.2010-09-09", "type": "cfn",
                       "aliases": []}


def test_template_version_list_table(capsys):
    assert main(["--in-process", "template-version-list"]) == 0
    out = capsys.readouterr().out
    assert "| Version" in out and "heat_template_version.2021-04-16" in out


def test_template_function_list_accepts_alias_and_prefix(capsys):
    assert main(["--in-process", "template-function-list", "newton", "--format", "json"]) == 0
    by_alias = json.loads(capsys.readouterr().out)
    assert main(["--in-process", "template-function-list", "heat_template_version.2016-10-14",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_alias
    names = [row["functions"] for row in by_alias]
    assert "yaql" in names and "equals" not in names


def test_template_function_list_with_condition_functions(capsys):
    assert main(["--in-process", "template-function-list", "2016-10-14",
                 "--with-condition-functions", "--format", "value"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("equals ") for line in lines)


def test_template_function_list_unknown_version(capsys):
    assert main(["--in-process", "template-function-list", "stein"]) == 1
    assert capsys.readouterr().err == "ERROR: Template with version stein not found\n"
