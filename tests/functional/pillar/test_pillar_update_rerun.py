"""A call that reads a Hearth::Pillar::Data value runs again when only the pillar changed.

The demo's case (``make run`` after editing its pillar), through stackctl:
the pillar is compiled again by each update (``refresh``), and the call
writing a file from it is updated, and so made again, because the value
it was given when it last ran (stored with its state) is not the pillar's
any more; as Heat updates a resource whose ``get_attr`` value changed.
"""

from __future__ import annotations

import pytest

from tests.functional import stackctl_process

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  pillar:
    type: Hearth::Pillar::Data
    properties:
      agent: db1
      grains: {{role: db}}
      secret_keys: ["db:password"]
  write:
    type: Hearth::Exec::Call
    properties:
      function: file.write
      args:
        - {out}
        - str_replace:
            template: "replicas=$REPLICAS password=$PASSWORD"
            params:
              $REPLICAS: {{get_attr: [pillar, data, db, replicas]}}
              $PASSWORD: {{get_attr: [pillar, data, db, password]}}
  read:
    type: Hearth::Exec::Call
    properties:
      function: file.read
      args: [{out}]
      watch: [{{get_resource: write}}]
outputs:
  read: {{value: {{get_attr: [read, return]}}}}
"""

pytestmark = pytest.mark.slow


def stackctl(site, *args):
    return stackctl_process.run(site.home, *args, config=site.config, timeout=180)


def test_a_pillar_change_makes_the_write_run_again(pillar_site, tmp_path):
    out = tmp_path / "app.conf"
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE.format(out=out))
    created = stackctl(pillar_site, "stack-create", "-f", str(template), "conf")
    assert created.returncode == 0, created.stdout + created.stderr
    assert out.read_text() == "replicas=2 password=s3cret-db\n"

    pillar_site.write("database.sls", "db:\n  replicas: 3\n")
    updated = stackctl(pillar_site, "stack-update", "-f", str(template), "conf")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "[write]: UPDATE_COMPLETE" in updated.stdout
    assert "[read]: UPDATE_COMPLETE" in updated.stdout   # it watches the write
    assert out.read_text() == "replicas=3 password=s3cret-db\n"

    unchanged = stackctl(pillar_site, "stack-update", "-f", str(template), "conf")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert "[pillar]: UPDATE_COMPLETE" in unchanged.stdout   # compiled again (refresh)
    assert "[write]: UPDATE" not in unchanged.stdout   # the same values: not written again

    pillar_site.write("common.sls", "db:\n  password: n3w-secret\n  port: 5432\n")
    rotated = stackctl(pillar_site, "stack-update", "-f", str(template), "conf")
    assert rotated.returncode == 0, rotated.stdout + rotated.stderr
    assert "[write]: UPDATE_COMPLETE" in rotated.stdout
    assert out.read_text() == "replicas=3 password=n3w-secret\n"
    events = stackctl(pillar_site, "event-list", "conf", "--format", "json")
    for text in (created.stdout, updated.stdout, rotated.stdout, events.stdout):
        assert "s3cret-db" not in text and "n3w-secret" not in text
