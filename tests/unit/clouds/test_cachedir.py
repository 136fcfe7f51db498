"""Salt Cloud's node index and cache under the cachedir."""

import json

from hearth.clouds import cachedir


def test_the_index_records_and_forgets_nodes(tmp_path):
    cachedir.cachedir_index_add("web-1", "web", "ec2", "aws:ec2", base=str(tmp_path))
    cachedir.cachedir_index_add("db-1", None, "ec2", "aws", base=str(tmp_path))
    assert cachedir.cachedir_index(str(tmp_path)) == {
        "web-1": {"id": "web-1", "profile": "web", "driver": "ec2", "provider": "aws"},
        "db-1": {"id": "db-1", "profile": None, "driver": "ec2", "provider": "aws"}}
    cachedir.cachedir_index_del("web-1", base=str(tmp_path))
    cachedir.cachedir_index_del("never", base=str(tmp_path))
    assert list(cachedir.cachedir_index(str(tmp_path))) == ["db-1"]


def test_the_node_cache_is_kept_only_with_update_cachedir(tmp_path):
    opts = {"cachedir": str(tmp_path), "providers": {"aws": {"ec2": {}}}}
    cachedir.cache_node({"name": "web-1", "id": "i-1"}, "aws:ec2", opts)
    assert not (tmp_path / "active").exists()
    opts["update_cachedir"] = True
    cachedir.cache_node_list({"web-1": {"id": "i-1"}, "web-2": {"id": "i-2"}}, "aws", opts)
    folder = tmp_path / "active" / "ec2" / "aws"
    assert json.loads((folder / "web-2.json").read_text()) == {"id": "i-2"}
    cachedir.cache_node_list({"web-2": {"id": "i-2"}}, "aws", opts)
    assert sorted(p.name for p in folder.iterdir()) == ["web-2.json"]
    cachedir.delete_minion_cachedir("web-2", "aws", opts)
    cachedir.delete_minion_cachedir("web-2", "aws", opts)  # gone already: fine
    assert list(folder.iterdir()) == []
