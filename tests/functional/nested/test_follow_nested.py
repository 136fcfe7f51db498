"""``stackctl event-list --follow --nested-depth N`` prints the nested stacks' events live."""

import subprocess

from tests.functional.stackctl_process import STACKCTL, environment, read_until, run, start

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  inner:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources:
          slow: {type: OS::Heat::TestResource, properties: {wait_secs: 2}}
"""
#: Seconds the follower runs: the nested resource ends about two seconds after it started.
FOLLOW_SECONDS = 8


def test_following_with_a_nested_depth_prints_the_nested_events_by_path(hearth_home,
                                                                        tmp_path):
    (tmp_path / "outer.yaml").write_text(TEMPLATE)
    creating = start(hearth_home, "stack-create", "-f", str(tmp_path / "outer.yaml"), "outer")
    try:
        read_until(creating, "[inner]: CREATE_IN_PROGRESS")
        try:
            subprocess.run([STACKCTL, "event-list", "--follow", "-n", "1", "outer"],
                           env=environment(hearth_home), capture_output=True, text=True,
                           timeout=FOLLOW_SECONDS)
            raise AssertionError("event-list --follow ended by itself")
        except subprocess.TimeoutExpired as followed:
            printed = followed.stdout or ""
            printed = printed if isinstance(printed, str) else printed.decode()
    finally:
        creating.communicate(timeout=60)
    assert creating.returncode == 0
    assert "[inner.slow]: CREATE_IN_PROGRESS" in printed, printed
    assert "[inner.slow]: CREATE_COMPLETE" in printed, printed
    assert "inner.slow" not in run(hearth_home, "event-list", "outer").stdout
