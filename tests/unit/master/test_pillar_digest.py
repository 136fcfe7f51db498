"""The digest masters sharing a database compare: their pillar options and trees."""

from hearth.master.pillar_digest import PillarDigest


def tree(base, files):
    for relative, text in files.items():
        path = base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(base)


FILES = {"top.sls": "base:\n  '*': [common]\n", "common.sls": "ntp: pool.example\n",
         "web/init.sls": "port: 80\n"}


def digest(opts):
    return PillarDigest(lambda: opts)()


def test_the_same_tree_elsewhere_gives_the_same_digest(tmp_path):
    one = tree(tmp_path / "one", FILES)
    two = tree(tmp_path / "elsewhere" / "two", FILES)
    assert digest({"pillar_roots": {"base": [one]}}) == \
        digest({"pillar_roots": {"base": [two]}})


def test_a_file_an_option_or_an_environment_that_differs_changes_it(tmp_path):
    root = tree(tmp_path / "root", FILES)
    opts = {"pillar_roots": {"base": [root]}, "ext_pillar": [{"file_tree": {"root_dir": "x"}}]}
    compute = PillarDigest(lambda: opts)
    first = compute()
    assert compute() == first                     # nothing changed (hashes kept by stat)
    (tmp_path / "root" / "web" / "init.sls").write_text("port: 8080\n")
    changed = compute()
    assert changed != first
    assert digest({**opts, "ext_pillar": []}) != changed
    assert digest({**opts, "pillar_source_merging_strategy": "recurse"}) != changed
    assert digest({**opts, "pillar_roots": {"prod": [root]}}) != changed
    (tmp_path / "root" / "extra.sls").write_text("a: 1\n")
    assert compute() != changed


def test_hidden_files_and_a_missing_root_do_not_count(tmp_path):
    root = tree(tmp_path / "root", FILES)
    before = digest({"pillar_roots": {"base": [root]}})
    (tmp_path / "root" / ".git").mkdir()
    (tmp_path / "root" / ".git" / "HEAD").write_text("ref\n")
    (tmp_path / "root" / ".swp").write_text("x")
    assert digest({"pillar_roots": {"base": [root]}}) == before
    assert digest({"pillar_roots": {"base": [root, str(tmp_path / "none")]}}) == before
