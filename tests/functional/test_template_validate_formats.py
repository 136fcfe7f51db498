"""``stackctl template-validate`` prints json parameter defaults in every format (defect 3)."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.functional import stackctl_process

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  ports: {type: json, default: [80, 443]}
  opts: {type: json, default: {a: [1, {b: 2}]}}
"""


@pytest.mark.parametrize("fmt", ["yaml", "json", "table"])
def test_list_and_map_defaults_print(tmp_path, fmt):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    done = stackctl_process.run(tmp_path / "home", "template-validate", "-f", str(path),
                                "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert "Unexpected error" not in done.stderr
    if fmt == "table":
        assert "- 443" in done.stdout and "b: 2" in done.stdout
        return
    answer = (json.loads if fmt == "json" else yaml.safe_load)(done.stdout)
    assert answer["Parameters"]["ports"]["Default"] == [80, 443]
    assert answer["Parameters"]["opts"]["Default"] == {"a": [1, {"b": 2}]}
