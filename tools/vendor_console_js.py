"""Fetch the console's browser libraries with npm and record them in VENDORED.json.

The console (``hearth/console``) ships htmx and its server-sent-events
extension inside the Python package, so a wheel serves the console with no
download at run time.  This tool is how those files change: it runs
``npm pack PACKAGE@VERSION`` for each entry of
``hearth/console/static/vendor/VENDORED.json`` (or the versions given, as
``htmx.org=2.0.11``), copies the file and the licence out of the tarball and
writes their SHA-256 back; ``tests/unit/console/test_vendored.py`` checks
that the shipped files are the recorded ones.

Usage: ``.venv/bin/python tools/vendor_console_js.py [PACKAGE=VERSION ...]``
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "hearth" / "console" / "static" / "vendor"
MANIFEST = VENDOR / "VENDORED.json"


def _pack(package: str, version: str, workdir: Path) -> Path:
    """Return the unpacked ``package/`` directory of ``npm pack package@version``."""
    result = subprocess.run(["npm", "pack", "--silent", f"{package}@{version}"], cwd=workdir,
                            capture_output=True, text=True, check=True, timeout=300)
    tarball = workdir / result.stdout.strip().splitlines()[-1]
    target = workdir / package
    with tarfile.open(tarball) as archive:
        archive.extractall(target, filter="data")
    return target / "package"


def main(argv: list[str]) -> int:
    """Fetch every vendored file again (at the versions given); return the exit code."""
    manifest = json.loads(MANIFEST.read_text())
    wanted = dict(item.split("=", 1) for item in argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name, entry in manifest["files"].items():
            entry["version"] = wanted.get(entry["package"], entry["version"])
            unpacked = _pack(entry["package"], entry["version"], Path(tmp))
            shutil.copyfile(unpacked / entry["source"], VENDOR / name)
            shutil.copyfile(unpacked / "LICENSE", VENDOR / entry["licence_file"])
            entry["sha256"] = hashlib.sha256((VENDOR / name).read_bytes()).hexdigest()
            print(f"{name}: {entry['package']} {entry['version']} {entry['sha256']}")
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
