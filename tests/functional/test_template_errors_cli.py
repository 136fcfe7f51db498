"""Template errors as ``stackctl`` prints them: file, line and column, and what to write instead."""

from __future__ import annotations

import pytest

from tests.functional import stackctl_process


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("template-errors")


@pytest.mark.parametrize("text, error", [
    ("heat_template_version: 2021-04-16\nresources:\n\ta: {type: OS::Heat::None}\n",
     "ERROR: t.yaml:3:1: Error parsing template: found a tab character: YAML indents with "
     "spaces only, never tabs"),
    ("heat_template_version: 2021-04-16\nresources:\n  a: {type: OS::Heat::None\n",
     "ERROR: t.yaml:4:1: Error parsing template: did not find expected ',' or '}'"),
    ("resources:\n  a: {type: OS::Heat::None}\n",
     'ERROR: t.yaml: The template version is invalid: Template format version not found. '
     'Add "heat_template_version", one of: 2013-05-23, 2014-10-16, 2015-04-30, 2015-10-15, '
     '2016-04-08, 2016-10-14, 2017-02-24, 2017-09-01, 2018-03-02, 2018-08-31, 2021-04-16, '
     'newton, ocata, pike, queens, rocky, wallaby (or a CloudFormation-format '
     '"AWSTemplateFormatVersion: 2010-09-09")'),
    ("heat_template_version: 2021-04-16\nresources:\n  a: {type: OS::Heat::RandomString}\n"
     "outputs:\n  o: {value: {get_attr: [a, vaule]}}\n",
     'ERROR: t.yaml:5: outputs.o.value: The Referenced Attribute (a vaule) is incorrect. '
     'Did you mean "value"?'),
], ids=["tab", "column", "no-version", "attribute"])
def test_template_errors_are_located_and_say_what_to_write(home, tmp_path, text, error):
    (tmp_path / "t.yaml").write_text(text)
    for command in (["template-validate", "-f", "t.yaml"],
                    ["stack-create", "-f", "t.yaml", "s"]):
        done = stackctl_process.run(home, *command, cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr.splitlines() == [error], command
