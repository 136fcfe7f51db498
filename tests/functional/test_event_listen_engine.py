"""A running engine's events reach ``stackctl event-listen`` in another process."""

import os
import subprocess
import sys
import time

BIN = os.path.dirname(sys.executable)
TEMPLATE = """heat_template_version: 2021-04-16
resources:
  slow:
    type: OS::Heat::TestResource
    properties:
      wait_secs: 1
  after:
    type: OS::Heat::None
    depends_on: slow
"""


def test_event_listen_shows_a_running_engines_events(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    env = {**os.environ, "HEARTH_HOME": str(home)}
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    listener = subprocess.Popen([os.path.join(BIN, "stackctl"), "event-listen",
                                 "--tag", "hearth/stack/*"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    try:
        time.sleep(1.5)  # let the subscriber connect before the engine starts
        create = subprocess.run([os.path.join(BIN, "stackctl"), "stack-create", "-f",
                                 str(template), "watched"], env=env, capture_output=True,
                                text=True, timeout=60)
        assert create.returncode == 0, create.stderr
        time.sleep(0.5)
    finally:
        listener.terminate()
        out, err = listener.communicate(timeout=10)
    assert "EventletDeprecationWarning" not in create.stderr + err
    tags = [line.split("\t", 1)[0] for line in out.splitlines() if line.strip()]
    assert any(t.endswith("/slow/CREATE_COMPLETE") for t in tags), out
    assert any(t.endswith("/watched/CREATE_COMPLETE") for t in tags), out
    assert tags.index(next(t for t in tags if t.endswith("/slow/CREATE_COMPLETE"))) < \
        tags.index(next(t for t in tags if t.endswith("/after/CREATE_IN_PROGRESS")))
