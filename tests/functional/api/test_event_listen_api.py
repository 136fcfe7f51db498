"""hearth-api publishes its engine's events: ``stackctl event-listen`` hears them.

hearth-api runs under eventlet's monkey-patching; the bus forwarder must
work there (it once needed gevent's ``zmq.green`` and stayed silently off).
"""

import os
import subprocess
import sys
import time

import requests

BIN = os.path.dirname(sys.executable)
TEMPLATE = {"heat_template_version": "2021-04-16",
            "resources": {"slow": {"type": "OS::Heat::TestResource",
                                   "properties": {"wait_secs": 1}},
                          "after": {"type": "OS::Heat::None", "depends_on": "slow"}}}


def test_event_listen_hears_a_hearth_api(noauth_server):
    listener = subprocess.Popen([os.path.join(BIN, "stackctl"), "event-listen",
                                 "--tag", "hearth/stack/*", "--timeout", "20"],
                                env=noauth_server.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)  # let the subscriber connect before the stack starts
        url = noauth_server.url("admin")
        created = requests.post(f"{url}/stacks", json={"stack_name": "listened",
                                                       "template": TEMPLATE}, timeout=30)
        assert created.status_code == 201, created.text
        stack = f"{url}/stacks/listened/{created.json()['stack']['id']}"
        deadline = time.monotonic() + 30
        while requests.get(stack, timeout=10).json()["stack"]["stack_status"] \
                == "CREATE_IN_PROGRESS" and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
    finally:
        listener.terminate()
        out, err = listener.communicate(timeout=10)
    tags = [line.split("\t", 1)[0] for line in out.splitlines() if line.strip()]
    assert any(t.endswith("/slow/CREATE_COMPLETE") for t in tags), (out, err)
    assert any(t.endswith("/listened/CREATE_COMPLETE") for t in tags), out
    assert tags.index(next(t for t in tags if t.endswith("/slow/CREATE_COMPLETE"))) < \
        tags.index(next(t for t in tags if t.endswith("/after/CREATE_IN_PROGRESS")))
