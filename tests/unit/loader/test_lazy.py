"""The loader end to end: sources, virtual names, exports, dunders, refresh."""

import sys

import pytest

from hearth.common import exception
from hearth.loader import EXECUTION, Loader


def test_builtin_function_is_loaded_lazily_by_file_name(make_loader):
    loader = make_loader()
    assert loader["test.ping"]() is True
    assert sorted(m for m in loader._modules) == ["test"]


def test_missing_function_of_loaded_module(make_loader):
    loader = make_loader()
    with pytest.raises(exception.FunctionNotFound) as caught:
        loader["test.nope"]
    assert str(caught.value) == "'test.nope' is not available."


def test_missing_module(make_loader):
    with pytest.raises(exception.FunctionNotFound) as caught:
        make_loader().function("nosuch.fun")
    assert str(caught.value) == "'nosuch.fun' is not available."


def test_private_and_imported_names_are_not_exported(make_loader, module_dir):
    module_dir.write("demo", """
        from os.path import join

        def _private():
            return 1

        def public():
            return _private()
    """)
    loader = make_loader()
    assert loader["demo.public"]() == 1
    assert "demo._private" not in loader
    assert "demo.join" not in loader


def test_func_alias_exports_list_as_list(make_loader, module_dir):
    module_dir.write("things", """
        __func_alias__ = {"list_": "list"}

        def list_():
            return ["a"]
    """)
    loader = make_loader()
    assert loader["things.list"]() == ["a"]
    assert "things.list_" not in loader


def test_cross_calls_through_salt_dunder(make_loader, module_dir):
    module_dir.write("caller", """
        def shout(text):
            return __salt__["test.echo"](text).upper()

        def ping_attr():
            return __salt__.test.ping()
    """)
    loader = make_loader()
    assert loader["caller.shout"]("hi") == "HI"
    assert loader["caller.ping_attr"]() is True


def test_grains_pillar_and_context_are_injected(make_loader, module_dir):
    module_dir.write("facts", """
        def both():
            __context__["seen"] = True
            return __grains__["os"], __pillar__["role"]
    """)
    loader = make_loader()
    assert loader["facts.both"]() == ("Debian", "web")
    assert loader.context == {"seen": True}


def test_config_wins_over_module_opts_defaults(make_loader, module_dir):
    module_dir.write("echoargs", """
        __opts__ = {"echoargs.opt": "module-default", "echoargs.other": "kept"}

        def opt():
            return __opts__["echoargs.opt"], __opts__["echoargs.other"]
    """)
    loader = make_loader(**{"echoargs.opt": "from-config"})
    assert loader["echoargs.opt"]() == ("from-config", "kept")


def test_later_module_dir_overrides_builtin_by_virtualname(make_loader, module_dir):
    module_dir.write("mytest", """
        __virtualname__ = "test"

        def ping():
            return "overridden"
    """)
    loader = make_loader()
    assert loader["test.ping"]() == "overridden"
    assert "test.echo" not in loader
    assert loader.modules["test"].source.origin == "ext"


def test_later_directory_wins_over_earlier(tmp_path, make_loader):
    from tests.unit.loader.conftest import ModuleDir
    first, second = ModuleDir(tmp_path / "a"), ModuleDir(tmp_path / "b")
    first.write("dup", "def which():\n    return 'first'\n")
    second.write("dup", "def which():\n    return 'second'\n")
    assert make_loader(first, second)["dup.which"]() == "second"


def test_import_error_is_kept_as_the_reason(make_loader, module_dir):
    module_dir.write("broken", "import not_installed_lib\n\ndef f():\n    return 1\n")
    loader = make_loader()
    with pytest.raises(exception.ModuleNotAvailable) as caught:
        loader["broken.f"]
    assert str(caught.value) == ("'broken' __virtual__ returned False: "
                                 "No module named 'not_installed_lib'")
    assert loader.failures["broken"] is caught.value


def test_syntax_error_is_kept_as_the_reason(make_loader, module_dir):
    module_dir.write("bad", "def f(:\n")
    with pytest.raises(exception.ModuleNotAvailable) as caught:
        make_loader()["bad.f"]
    assert str(caught.value).startswith(
        "'bad' __virtual__ returned False: Failed to import module: SyntaxError:")
    assert "hearth.loaded" not in " ".join(n for n in sys.modules if n.endswith(".bad"))


def test_optional_library_pair(make_loader, module_dir):
    """Two modules guarded by an optional library: one has it, one does not."""
    module_dir.write("withjson", """
        try:
            import json
            HAS_LIB = True
        except ImportError:
            HAS_LIB = False

        def __virtual__():
            if HAS_LIB:
                return "fmt"
            return (False, "the json library is not installed")

        def dump(value):
            return json.dumps(value)
    """)
    module_dir.write("withfancy", """
        try:
            import fancy_missing_lib
            HAS_LIB = True
        except ImportError:
            HAS_LIB = False

        __virtualname__ = "fancy"

        def __virtual__():
            if HAS_LIB:
                return __virtualname__
            return (False, "the fancy_missing_lib library is not installed")

        def render(value):
            return value
    """)
    loader = make_loader()
    assert loader["fmt.dump"]([1]) == "[1]"
    with pytest.raises(exception.ModuleNotAvailable) as caught:
        loader["fancy.render"]
    assert str(caught.value) == ("'withfancy' __virtual__ returned False: "
                                 "the fancy_missing_lib library is not installed")


def test_refresh_re_evaluates_refused_modules(make_loader, module_dir, tmp_path):
    flag = tmp_path / "flag"
    module_dir.write("gated", f"""
        import os

        def __virtual__():
            return os.path.exists({str(flag)!r}) or (False, "flag file missing")

        def go():
            return "went"
    """)
    loader = make_loader()
    with pytest.raises(exception.ModuleNotAvailable, match="flag file missing"):
        loader["gated.go"]
    flag.write_text("")
    loader.refresh()
    assert loader["gated.go"]() == "went"


def test_refresh_clears_context(make_loader):
    loader = make_loader()
    loader.context["x"] = 1
    loader.refresh()
    assert loader.context == {}


@pytest.mark.parametrize("answer, message", [
    ("False", "'gate' __virtual__ returned False"),
    ("None", "'gate' __virtual__ returned False"),
    ("(False, 'no way')", "'gate' __virtual__ returned False: no way"),
    ("1 / 0", "'gate' __virtual__ returned False: Exception raised when processing "
              "__virtual__ function for gate. Module will not be loaded: division by zero"),
])
def test_virtual_refusals(make_loader, module_dir, answer, message):
    module_dir.write("gate", f"def __virtual__():\n    return {answer}\n\ndef f():\n    pass\n")
    with pytest.raises(exception.ModuleNotAvailable) as caught:
        make_loader()["gate.f"]
    assert str(caught.value) == message


def test_virtual_returning_a_name_renames(make_loader, module_dir):
    module_dir.write("longname", "def __virtual__():\n    return 'short'\n\n"
                                 "def f():\n    return 2\n")
    loader = make_loader()
    assert loader["short.f"]() == 2
    assert "longname.f" not in loader


def test_init_hook_runs_with_opts_and_failure_refuses(make_loader, module_dir):
    module_dir.write("inited", """
        SEEN = {}

        def __init__(opts):
            SEEN.update(opts)

        def seen(key):
            return SEEN.get(key)
    """)
    module_dir.write("badinit", "def __init__(opts):\n    raise RuntimeError('nope')\n")
    loader = make_loader(answer=42)
    assert loader["inited.seen"]("answer") == 42
    assert str(loader.failures["badinit"]) == (
        "'badinit' __virtual__ returned False: __init__ failed: RuntimeError: nope")


def test_outputter_and_load_list(make_loader, module_dir):
    module_dir.write("outs", """
        __outputter__ = {"text": "txt"}
        __load__ = ["text"]

        def text():
            return "plain"

        def hidden():
            return 1
    """)
    loader = make_loader()
    assert loader.function("outs.text").outputter == "txt"
    assert "outs.hidden" not in loader


def test_zip_module_with_two_bundled_subpackages(make_loader, module_dir):
    module_dir.write_zip("zmod", {
        "zmod/__init__.py": """
            from .vendor_a import helper as a_helper
            from .vendor_b.deep import shout

            def hi():
                return shout(a_helper())

            def lazy():
                from .vendor_b import deep
                return deep.shout("late")
        """,
        "zmod/vendor_a/__init__.py": "def helper():\n    return 'hello'\n",
        "zmod/vendor_b/__init__.py": "",
        "zmod/vendor_b/deep.py": "def shout(text):\n    return text.upper()\n",
    })
    loader = make_loader(enable_zip_modules=True)
    assert loader["zmod.hi"]() == "HELLO"
    assert loader["zmod.lazy"]() == "LATE"
    # functions of the bundled packages are the package's own: exported only
    # when the package's __init__ names them
    assert "zmod.a_helper" in loader


def test_zip_modules_are_ignored_unless_enabled(make_loader, module_dir):
    module_dir.write_zip("zoff", {"zoff/__init__.py": "def hi():\n    return 1\n"})
    with pytest.raises(exception.FunctionNotFound):
        make_loader()["zoff.hi"]


def test_zip_without_its_package_is_a_failure(make_loader, module_dir):
    module_dir.write_zip("empty", {"other/__init__.py": ""})
    loader = make_loader(enable_zip_modules=True)
    assert str(loader.failures["empty"]) == (
        "'empty' __virtual__ returned False: can't find module 'empty'")


def test_package_directory_module(make_loader, module_dir):
    package = module_dir.path / "pkgmod"
    package.mkdir()
    (package / "__init__.py").write_text("from .impl import work\n")
    (package / "impl.py").write_text("def work():\n    return 'done'\n")
    assert make_loader()["pkgmod.work"]() == "done"


def test_two_loaders_do_not_share_modules(make_loader, module_dir):
    module_dir.write("state", "COUNT = []\n\n"
                              "def bump():\n    COUNT.append(1)\n    return len(COUNT)\n")
    first, second = make_loader(), make_loader()
    first["state.bump"]()
    assert second["state.bump"]() == 1


def test_mapping_interface_loads_everything(make_loader):
    loader = make_loader()
    names = list(loader)
    assert "test.ping" in names and "cmd.run" in names
    assert len(loader) == len(names)
    assert loader.get("nope.x", "dflt") == "dflt"


def test_sources_seam_builds_a_registry_from_a_list(module_dir):
    from hearth.loader.discovery import ModuleSource
    path = module_dir.write("solo", "def one():\n    return 1\n")
    loader = Loader(EXECUTION, {}, sources=[ModuleSource("solo", str(path), "file", "ext", 0)])
    assert list(loader) == ["solo.one"]


def test_loader_applies_depends_on_the_registered_virtual_name(make_loader, module_dir):
    module_dir.write("plainfile", """
        from hearth.utils.decorators import depends

        HAS_FOO = False
        HAS_BAR = True
        __virtualname__ = "plain"

        def _needs_foo_fallback():
            return "fallback"

        @depends("HAS_FOO", fallback_function=_needs_foo_fallback)
        def needs_foo_fb():
            return "foo"

        @depends("HAS_FOO")
        def needs_foo():
            return "foo"

        @depends("HAS_BAR")
        def needs_bar():
            return "bar"

        @depends(HAS_FOO)
        def needs_literal():
            return "literal"
    """)
    loader = make_loader()
    assert loader["plain.needs_foo_fb"]() == "fallback"
    assert loader["plain.needs_bar"]() == "bar"
    for removed in ("plain.needs_foo", "plain.needs_literal"):
        with pytest.raises(exception.FunctionNotFound) as caught:
            loader[removed]
        assert str(caught.value) == f"'{removed}' is not available."


def test_virtualname_wins_over_a_different_virtual_answer(make_loader, module_dir, caplog):
    module_dir.write("clash", """
        __virtualname__ = "static"

        def __virtual__():
            return "dynamic"

        def f():
            return 3
    """)
    loader = make_loader()
    assert loader["static.f"]() == 3
    assert "dynamic.f" not in loader
    assert "returned 'dynamic' but __virtualname__ is 'static'" in caplog.text
