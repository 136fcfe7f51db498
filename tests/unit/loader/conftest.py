"""Fixtures for loader tests: module directories written by the test."""

import textwrap
import zipfile

import pytest

from hearth.loader import EXECUTION, Loader


class ModuleDir:
    """A temporary directory of execution modules."""

    def __init__(self, path):
        self.path = path
        path.mkdir(exist_ok=True)

    def write(self, name, source):
        target = self.path / f"{name}.py"
        target.write_text(textwrap.dedent(source))
        return target

    def write_zip(self, name, files):
        archive = self.path / f"{name}.zip"
        with zipfile.ZipFile(archive, "w") as handle:
            for member, source in files.items():
                handle.writestr(member, textwrap.dedent(source))
        return archive


@pytest.fixture
def module_dir(tmp_path):
    return ModuleDir(tmp_path / "modules")


@pytest.fixture
def make_loader(module_dir):
    def make(*dirs, **opts):
        opts.setdefault("module_dirs", [str(d.path) for d in dirs] or [str(module_dir.path)])
        return Loader(EXECUTION, opts, pack={"__grains__": {"os": "Debian", "id": "m1"},
                                             "__pillar__": {"role": "web"}})
    return make
