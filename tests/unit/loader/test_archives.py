"""Zip archive modules: Salt's documented example, and archives kept apart."""

import sys

import pytest

from tests.unit.loader.conftest import ModuleDir

#: Salt's documented zip module: the bundled packages imported by the archive's own name.
LUMBERJACK = {
    "lumberjack/__init__.py": """
        # Libraries included in lumberjack.zip
        from lumberjack import sleep, work


        def is_ok(person):
            '''Check whether a person is really a lumberjack.'''
            return sleep.all_night(person) and work.all_day(person)


        def works_at(person):
            import lumberjack.work
            return lumberjack.work.place(person)
    """,
    "lumberjack/sleep/__init__.py": "def all_night(person):\n    return bool(person)\n",
    "lumberjack/work/__init__.py": """
        from lumberjack.sleep import all_night


        def all_day(person):
            return all_night(person)


        def place(person):
            from lumberjack import sleep
            return f"{person} works in the forest ({sleep.__name__.rpartition('.')[2]})"
    """,
}


def _bundling(name, value):
    """Return the files of archive ``name`` bundling a package ``vendor`` answering ``value``."""
    return {f"{name}/__init__.py": f"from {name} import vendor\n\n\ndef which():\n"
                                   f"    return vendor.VALUE\n",
            f"{name}/vendor/__init__.py": f"VALUE = {value!r}\n"}


def test_salt_documented_zip_module_loads(make_loader, module_dir):
    module_dir.write_zip("lumberjack", LUMBERJACK)
    loader = make_loader(enable_zip_modules=True)
    assert "lumberjack" not in loader.failures
    assert loader["lumberjack.is_ok"]("Michael Palin") is True
    assert loader["lumberjack.is_ok"]("") is False
    # an absolute import at call time, in the package and in a bundled package
    assert loader["lumberjack.works_at"]("Michael") == "Michael works in the forest (sleep)"


def test_the_bare_name_stays_private_to_the_archive(make_loader, module_dir):
    module_dir.write_zip("lumberjack", LUMBERJACK)
    make_loader(enable_zip_modules=True)["lumberjack.is_ok"]("x")
    assert not [name for name in sys.modules if name.split(".")[0] == "lumberjack"]
    with pytest.raises(ModuleNotFoundError):
        __import__("lumberjack")


def test_two_archives_of_one_name_keep_their_own_bundled_packages(make_loader, tmp_path):
    first, second = ModuleDir(tmp_path / "one"), ModuleDir(tmp_path / "two")
    first.write_zip("tool", _bundling("tool", "first"))
    second.write_zip("tool", _bundling("tool", "second"))
    one = make_loader(first, enable_zip_modules=True)
    two = make_loader(second, enable_zip_modules=True)
    assert one["tool.which"]() == "first"
    assert two["tool.which"]() == "second"
    assert one["tool.which"]() == "first"


def test_two_archives_bundling_a_package_of_the_same_name(make_loader, module_dir):
    module_dir.write_zip("alpha", _bundling("alpha", "a"))
    module_dir.write_zip("beta", _bundling("beta", "b"))
    loader = make_loader(enable_zip_modules=True)
    assert (loader["alpha.which"](), loader["beta.which"]()) == ("a", "b")


def test_same_named_archives_in_one_loader_do_not_share_modules(make_loader, tmp_path):
    first, second = ModuleDir(tmp_path / "one"), ModuleDir(tmp_path / "two")
    first.write_zip("tool", _bundling("tool", "first"))
    second.write_zip("tool", {**_bundling("tool", "second"),
                              "tool/__init__.py": "from tool import vendor\n\n\n"
                                                  "def which():\n    return vendor.VALUE\n\n\n"
                                                  "def second_only():\n    return True\n"})
    loader = make_loader(first, second, enable_zip_modules=True)
    # the later directory wins, with its own bundled package, not the first archive's
    assert loader["tool.which"]() == "second"
    assert loader["tool.second_only"]() is True


def test_refresh_forgets_the_archive(make_loader, module_dir):
    module_dir.write_zip("tool", _bundling("tool", "old"))
    loader = make_loader(enable_zip_modules=True)
    assert loader["tool.which"]() == "old"
    module_dir.write_zip("tool", _bundling("tool", "new"))
    loader.refresh()
    assert loader["tool.which"]() == "new"
