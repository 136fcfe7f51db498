"""The client gathers provider templates named by a ``type`` anywhere, as heatclient."""

from __future__ import annotations

import json

from hearth.cli import template_files

GROUP = """heat_template_version: 2015-04-30
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 2
      resource: {type: member.yaml}
"""
MEMBER = """heat_template_version: 2015-04-30
resources:
  inner: {type: OS::Heat::None}
"""


def test_a_group_members_provider_template_is_read_and_its_type_rewritten(tmp_path):
    (tmp_path / "group.yaml").write_text(GROUP)
    (tmp_path / "member.yaml").write_text(MEMBER)
    request = template_files.gather(str(tmp_path / "group.yaml"))
    url = template_files.file_url(str(tmp_path / "member.yaml"))
    member_type = request["template"]["resources"]["group"]["properties"]["resource"]["type"]
    assert member_type == url
    assert json.loads(request["files"][url])["resources"] == {"inner": {"type": "OS::Heat::None"}}
