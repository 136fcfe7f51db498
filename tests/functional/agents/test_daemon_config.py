"""hearth-master and hearth-agent refuse a bad configuration clearly (exit 2, no traceback)."""

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.mark.parametrize("program, section", [("hearth-master", "master"),
                                              ("hearth-agent", "agent")])
def test_a_bad_configuration_is_named_and_exits_2(tmp_path, program, section):
    config = tmp_path / "bad.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n[{section}]\n"
                      "master_port = not-a-port\nport = not-a-port\n")
    done = subprocess.run([str(BIN / program), "--config-file", str(config), "--foreground"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"{program}: ")
    assert "not-a-port" in done.stderr
    assert "Traceback" not in done.stderr
