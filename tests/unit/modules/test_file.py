"""file.*: Salt's return shapes and errors."""

import hashlib

import pytest

from hearth.common import exception


def test_write_read_append(salt, tmp_path):
    path = str(tmp_path / "f")
    assert salt["file.write"](path, "a", "b") == f'Wrote 2 lines to "{path}"'
    assert salt["file.append"](path, "c") == f'Wrote 1 lines to "{path}"'
    assert salt["file.read"](path) == "a\nb\nc\n"


def test_relative_path_is_refused(salt):
    with pytest.raises(exception.CommandExecutionError, match="^File path must be absolute: x$"):
        salt["file.read"]("x")


def test_exists_touch_remove(salt, tmp_path):
    path = str(tmp_path / "t")
    assert salt["file.file_exists"](path) is False
    assert salt["file.touch"](path, mtime=100) is True
    assert salt["file.file_exists"](path) is True
    assert salt["file.stats"](path)["mtime"] == 100
    assert salt["file.directory_exists"](str(tmp_path)) is True
    assert salt["file.file_exists"](str(tmp_path)) is False
    assert salt["file.remove"](path) is True
    assert salt["file.remove"](path) is False


def test_mkdir_copy_rename(salt, tmp_path):
    directory = str(tmp_path / "a" / "b")
    assert salt["file.mkdir"](directory, mode="0750") is True
    assert salt["file.stats"](directory)["mode"] == "0750"
    src = tmp_path / "src"
    src.write_text("x")
    assert salt["file.copy"](str(src), directory + "/c") is True
    assert salt["file.rename"](directory + "/c", directory + "/d") is True
    assert salt["file.read"](directory + "/d") == "x"
    with pytest.raises(exception.CommandExecutionError, match="without recurse=True"):
        salt["file.copy"](str(tmp_path / "a"), str(tmp_path / "z"))
    assert salt["file.copy"](str(tmp_path / "a"), str(tmp_path / "z"), recurse=True) is True
    with pytest.raises(exception.CommandExecutionError, match="does not exist"):
        salt["file.rename"](str(tmp_path / "nope"), str(tmp_path / "q"))


def test_stats_and_hash(salt, tmp_path):
    path = tmp_path / "h"
    path.write_bytes(b"data")
    stats = salt["file.stats"](str(path), hash_type="md5")
    assert stats["type"] == "file" and stats["size"] == 4
    assert stats["sum"] == hashlib.md5(b"data").hexdigest()
    assert salt["file.get_hash"](str(path)) == hashlib.sha256(b"data").hexdigest()
    with pytest.raises(exception.CommandExecutionError, match="^Invalid hash type 'nope'$"):
        salt["file.get_hash"](str(path), "nope")
    with pytest.raises(exception.CommandExecutionError, match="^Path not found: "):
        salt["file.stats"](str(tmp_path / "missing"))


def test_chmod_and_chown(salt, tmp_path):
    path = tmp_path / "m"
    path.write_text("")
    assert salt["file.set_mode"](str(path), "0600") == "0600"
    assert salt["file.chmod"](str(path), "644") == "0644"
    stats = salt["file.stats"](str(path))
    assert salt["file.chown"](str(path), stats["uid"], stats["gid"]) is None
    with pytest.raises(exception.CommandExecutionError,
                       match="^Unknown user or group: nosuchuserx$"):
        salt["file.chown"](str(path), "nosuchuserx", -1)
