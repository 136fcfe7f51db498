"""Discovery: which directory entries are module sources, in which order."""

from hearth.loader.discovery import discover, scan_directory


def test_scan_skips_private_hidden_and_non_modules(tmp_path):
    for name in ("b.py", "a.py", "_private.py", ".hidden.py", "notes.txt", "bad-name.py",
                 "z.zip"):
        (tmp_path / name).write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "plain_dir").mkdir()
    sources = scan_directory(str(tmp_path), "ext", zip_enabled=False)
    assert [(s.name, s.kind, s.rank) for s in sources] == [
        ("a", "file", 0), ("b", "file", 1), ("pkg", "package", 2)]
    with_zip = scan_directory(str(tmp_path), "ext", zip_enabled=True)
    assert [s.name for s in with_zip] == ["a", "b", "pkg", "z"]


def test_missing_directory_yields_nothing(tmp_path):
    assert scan_directory(str(tmp_path / "nope"), "ext", False) == []


def test_builtins_rank_below_module_dirs_and_zip_only_from_module_dirs(tmp_path):
    builtin, extra = tmp_path / "int", tmp_path / "ext"
    builtin.mkdir()
    extra.mkdir()
    (builtin / "test.py").write_text("")
    (builtin / "packed.zip").write_text("")
    (extra / "test.py").write_text("")
    sources = discover([str(builtin)], [str(extra)], zip_enabled=True)
    assert [(s.name, s.origin, s.rank) for s in sources] == [("test", "int", 0),
                                                            ("test", "ext", 1)]
