"""The shipped sample configuration must match the options' declarations."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_sample_config_is_current(tmp_path):
    generated = tmp_path / "hearth.conf.sample"
    generator = pathlib.Path(sys.executable).with_name("oslo-config-generator")
    subprocess.run([str(generator), "--namespace", "hearth", "--output-file", str(generated)],
                   check=True, capture_output=True)
    shipped = (ROOT / "etc" / "hearth" / "hearth.conf.sample").read_text()
    assert generated.read_text() == shipped, (
        "etc/hearth/hearth.conf.sample is stale: run .venv/bin/oslo-config-generator "
        "--namespace hearth --output-file etc/hearth/hearth.conf.sample")
