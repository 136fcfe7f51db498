"""A HEARTH_HOME with a pillar configuration: roots, a YAML ext_pillar file, a hearth.conf."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

TOP = """\
base:
  '*':
    - common
  'G@role:db':
    - database
"""
COMMON = """\
db:
  host: db.internal
  password: s3cret-{{ grains.get('role', 'none') }}
  port: 5432
app:
  name: {{ opts['id'] }}
"""
DATABASE = "db:\n  replicas: 2\n"


@dataclass
class PillarSite:
    """Where one test's pillar lives, and how to change it."""

    home: Path
    config: Path
    roots: Path
    ext_file: Path

    def write(self, name: str, text: str) -> None:
        """Write a pillar file under the base root."""
        path = self.roots / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))

    def ext_pillar(self, *entries: dict) -> None:
        """Set the ext_pillar list of the YAML pillar configuration."""
        self.ext_file.write_text(yaml.safe_dump({"ext_pillar": list(entries)}))


@pytest.fixture
def pillar_site(tmp_path) -> PillarSite:
    """Return a HEARTH_HOME whose configuration points at fresh pillar files."""
    home = tmp_path / "home"
    home.mkdir()
    roots = tmp_path / "pillar"
    site = PillarSite(home, tmp_path / "hearth.conf", roots, tmp_path / "pillar.yaml")
    site.write("top.sls", TOP)
    site.write("common.sls", COMMON)
    site.write("database.sls", DATABASE)
    site.ext_pillar()
    site.config.write_text(f"[pillar]\npillar_roots = base={roots}\n"
                           f"config_file = {site.ext_file}\n")
    return site
