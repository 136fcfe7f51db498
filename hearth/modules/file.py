"""Manage files and directories: read, write, copy, stat, hash, own."""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import shutil
import stat as stat_module
from typing import Any

from hearth.common.exception import CommandExecutionError


def _expand(path: str) -> str:
    path = os.path.expanduser(str(path))
    if not os.path.isabs(path):
        raise CommandExecutionError(f"File path must be absolute: {path}")
    return path


def _write_lines(path: str, lines: tuple[Any, ...], mode: str) -> str:
    with open(_expand(path), mode, encoding="utf-8") as handle:
        for line in lines:
            handle.write(f"{line}\n")
    return f'Wrote {len(lines)} lines to "{path}"'


def write(path: str, *args: Any) -> str:
    """Write each argument as a line to ``path``, replacing its content."""
    return _write_lines(path, args, "w")


def append(path: str, *args: Any, **kwargs: Any) -> str:
    """Append each argument (or ``args=[...]``) as a line to ``path``."""
    lines = args or tuple(kwargs.get("args") or ())
    return _write_lines(path, lines, "a")


def read(path: str, binary: bool = False) -> str | bytes:
    """Return the content of ``path``."""
    with open(_expand(path), "rb" if binary else "r") as handle:
        return handle.read()


def touch(name: str, atime: float | None = None, mtime: float | None = None) -> bool:
    """Create ``name`` if missing and set its times (now by default); return True."""
    path = _expand(name)
    with open(path, "a"):
        pass
    if atime is not None or mtime is not None:
        now = os.stat(path)
        os.utime(path, (float(atime if atime is not None else now.st_atime),
                        float(mtime if mtime is not None else now.st_mtime)))
    else:
        os.utime(path)
    return True


def copy(src: str, dst: str, recurse: bool = False, remove_existing: bool = False) -> bool:
    """Copy ``src`` to ``dst`` (directories need ``recurse``); return True."""
    src, dst = _expand(src), _expand(dst)
    if not os.path.exists(src):
        raise CommandExecutionError(f"No such file or directory '{src}'")
    if os.path.isdir(src):
        if not recurse:
            raise CommandExecutionError(f"Cannot copy directory '{src}' without recurse=True")
        if remove_existing and os.path.exists(dst):
            shutil.rmtree(dst)
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        shutil.copy2(src, dst)
    return True


def rename(src: str, dst: str) -> bool:
    """Rename ``src`` to ``dst``; return True."""
    src, dst = _expand(src), _expand(dst)
    if not os.path.exists(src):
        raise CommandExecutionError(f"File '{src}' does not exist")
    os.rename(src, dst)
    return True


def remove(path: str, **kwargs: Any) -> bool:
    """Remove a file or directory tree; return False when it did not exist."""
    path = _expand(path)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
        return True
    if os.path.lexists(path):
        os.unlink(path)
        return True
    return False


def mkdir(dir_path: str, user: str | None = None, group: str | None = None,
          mode: str | None = None) -> bool:
    """Create ``dir_path`` and its parents; optionally set owner and mode."""
    path = _expand(dir_path)
    os.makedirs(path, exist_ok=True)
    if user or group:
        chown(path, user or -1, group or -1)
    if mode is not None:
        os.chmod(path, int(str(mode), 8))
    return True


def file_exists(path: str) -> bool:
    """Return whether ``path`` is an existing file (False for directories)."""
    return os.path.isfile(_expand(path))


def directory_exists(path: str) -> bool:
    """Return whether ``path`` is an existing directory."""
    return os.path.isdir(_expand(path))


def get_hash(path: str, form: str = "sha256") -> str:
    """Return the hex digest of ``path`` with the hash ``form`` (sha256, md5, ...)."""
    if form not in hashlib.algorithms_available:
        raise CommandExecutionError(f"Invalid hash type '{form}'")
    digest = hashlib.new(form)
    with open(_expand(path), "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _name_of(lookup: Any, ident: int) -> str:
    try:
        return lookup(ident)[0]
    except KeyError:
        return str(ident)


def stats(path: str, hash_type: str | None = None, follow_symlinks: bool = True) -> dict[str, Any]:
    """Return inode, owner, times, size, mode ("0644"), type and link target of ``path``."""
    path = _expand(path)
    if not os.path.lexists(path):
        raise CommandExecutionError(f"Path not found: {path}")
    info = os.stat(path) if follow_symlinks else os.lstat(path)
    kinds = {stat_module.S_ISDIR: "dir", stat_module.S_ISCHR: "char", stat_module.S_ISBLK: "block",
             stat_module.S_ISREG: "file", stat_module.S_ISFIFO: "pipe", stat_module.S_ISLNK: "link",
             stat_module.S_ISSOCK: "socket"}
    result = {
        "inode": info.st_ino, "uid": info.st_uid, "gid": info.st_gid,
        "user": _name_of(pwd.getpwuid, info.st_uid), "group": _name_of(grp.getgrgid, info.st_gid),
        "atime": info.st_atime, "mtime": info.st_mtime, "ctime": info.st_ctime,
        "size": info.st_size, "mode": f"{stat_module.S_IMODE(info.st_mode):04o}",
        "type": next((name for test, name in kinds.items() if test(info.st_mode)), "unknown"),
        "target": os.path.realpath(path),
    }
    if hash_type:
        result["sum"] = get_hash(path, hash_type)
    return result


def _id_of(lookup: Any, name: Any) -> int:
    if name in (None, "", -1, "-1"):
        return -1
    if str(name).isdigit():
        return int(name)
    try:
        return lookup(name)[2]
    except KeyError as error:
        raise CommandExecutionError(f"Unknown user or group: {name}") from error


def chown(path: str, user: Any, group: Any) -> None:
    """Set the owner and group of ``path`` (names or ids; -1 keeps one)."""
    os.chown(_expand(path), _id_of(pwd.getpwnam, user), _id_of(grp.getgrnam, group))


def set_mode(path: str, mode: str) -> str:
    """Set the mode of ``path`` (octal text such as "0644"); return the new mode."""
    os.chmod(_expand(path), int(str(mode), 8))
    return f"{stat_module.S_IMODE(os.stat(_expand(path)).st_mode):04o}"


def chmod(path: str, mode: str) -> str:
    """Set the mode of ``path``; same as ``set_mode``."""
    return set_mode(path, mode)
