"""The agent stays small: it never imports the engine, the database layer or eventlet."""

import subprocess
import sys

PROBE = """
import sys
from hearth.common import config
conf = config.load(config_files=[sys.argv[1]])
from hearth.agent.settings import AgentSettings
from hearth.agent.main import Agent
agent = Agent(AgentSettings.from_conf(conf), conf)
for name in ("test.ping", "cmd.run", "file.touch", "grains.items", "sys.list_functions",
             "saltutil.running", "event.send", "pillar.items"):
    agent.loader.function(name)
heavy = ("sqlalchemy", "alembic", "eventlet", "greenlet", "hearth.engine", "hearth.db",
         "hearth.api")
print(sorted(m for m in sys.modules if m.startswith(heavy)))
"""


def test_agent_imports_nothing_heavy(tmp_path):
    config = tmp_path / "agent.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n[agent]\nid = probe\n")
    result = subprocess.run([sys.executable, "-c", PROBE, str(config)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"
