"""The browser files the console ships are the ones VENDORED.json records (package, hash)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import hearth.console

VENDOR = Path(hearth.console.__file__).parent / "static" / "vendor"


def test_every_vendored_file_has_its_recorded_hash_and_licence():
    manifest = json.loads((VENDOR / "VENDORED.json").read_text())
    assert manifest["files"]
    for name, entry in manifest["files"].items():
        digest = hashlib.sha256((VENDOR / name).read_bytes()).hexdigest()
        assert digest == entry["sha256"], f"{name} is not {entry['package']} {entry['version']}"
        assert (VENDOR / entry["licence_file"]).read_text().strip()


def test_the_pages_load_only_vendored_or_own_scripts():
    templates = Path(hearth.console.__file__).parent / "templates"
    for template in templates.rglob("*.html"):
        text = template.read_text()
        # no inline script nor inline handler: the Content-Security-Policy would block them
        assert "<script>" not in text and " onclick=" not in text and " onload=" not in text, \
            template.name
