"""Gather the files a template refers to, client-side, as heatclient does.

The engine never opens a path named in a template.  Before sending a
template, the client reads every ``get_file`` target, every provider
template named by a resource ``type`` (``Type`` in a CloudFormation-format
template; ending ``.yaml`` or ``.template``)
and every template an environment's ``resource_registry`` names, each
relative to the file that refers to it, recursively.  Contents go into the
``files`` map keyed by absolute ``file:///...`` URL, and the references are
rewritten to those URLs.

A template whose text names no file at all (no ``get_file``, no
``.yaml``/``.template``) is sent as the text it is, unparsed: the engine
parses it as it would the parsed form, with the same located errors, and
the client saves a parse of the whole template.  Sizes are the server's to
check (``max_template_size``), not the client's.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.parse
from collections.abc import Iterable, MutableMapping
from types import ModuleType
from typing import Any

from hearth.cli.command import CommandError
from hearth.common import exception
from hearth.common.template_names import TEMPLATE_SUFFIXES, is_template
from hearth.common.text import NotUtf8, decode_utf8

MAX_DEPTH = 10


def file_url(path: str) -> str:
    """Return the absolute ``file://`` URL of a local path."""
    return "file://" + os.path.abspath(path)


def resolve(reference: str, base_url: str) -> str:
    """Return the absolute URL of ``reference`` relative to the URL ``base_url``."""
    if urllib.parse.urlparse(reference).scheme:
        return reference
    return urllib.parse.urljoin(base_url, reference)


def read_url_bytes(url: str) -> bytes:
    """Return the contents of a ``file://`` URL (other schemes are refused)."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme != "file":
        raise CommandError(f"Could not fetch contents for {url}: only local files are read")
    try:
        with open(urllib.parse.unquote(parsed.path), "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise CommandError(f"Could not fetch contents for {url}: {exc.strerror}") from None


def read_url(url: str, label: str | None = None) -> str:
    """Return the text of a ``file://`` URL: UTF-8, else an error naming the file and line.

    ``label`` names the file in the error (default: its path).
    """
    try:
        return decode_utf8(read_url_bytes(url))
    except NotUtf8 as exc:
        where = label or urllib.parse.unquote(urllib.parse.urlparse(url).path)
        raise CommandError(f"{where}:{exc.line}: {exc}") from None


def read_file_contents(url: str) -> str:
    """Return what a ``get_file`` of ``url`` sends: the text, or base64 when not UTF-8.

    As heatclient: a file that is not UTF-8 text (an image, an archive) is
    sent base64-encoded rather than refused.
    """
    data = read_url_bytes(url)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return base64.encodebytes(data).decode("ascii")


def _engine_templates() -> tuple[ModuleType, ModuleType]:
    """Return the engine's template parser and versions: its located errors, its tables."""
    # lazy: the parser (YAML, the versions' tables) only for a template that names files
    from hearth.engine.template import parser, versions
    return parser, versions


def _type_key(data: Any) -> str:
    """Return the key naming a resource's type in template ``data`` (``Type`` in CFN)."""
    _, versions = _engine_templates()
    try:
        key: str = versions.get_version(data).spell("type")
        return key
    except exception.InvalidTemplateVersion:  # the engine says why
        return "type"


class FileGatherer:
    """Read templates and their referenced files into one ``files`` map."""

    def __init__(self, files: MutableMapping[str, str] | None = None) -> None:
        self.files: MutableMapping[str, str] = files if files is not None else {}

    def template(self, url: str, depth: int = 0, filename: str | None = None,
                 text: str | None = None) -> Any:
        """Return the parsed template at ``url`` with its references rewritten.

        ``filename`` names the file in error messages (default: its path);
        ``text`` is the file's text when already read.
        """
        parser, _ = _engine_templates()
        if depth > MAX_DEPTH:
            raise CommandError(f"{url}: provider templates are nested more than "
                               f"{MAX_DEPTH} deep")
        filename = filename or urllib.parse.unquote(urllib.parse.urlparse(url).path)
        data = parser.parse(read_url(url, filename) if text is None else text,
                            filename, check_size=False)
        self._rewrite_functions(data, url, depth, _type_key(data))
        return data

    def _nested(self, reference: str, base_url: str, depth: int) -> str:
        url = resolve(reference, base_url)
        if url not in self.files:
            self.files[url] = ""  # guards against a template including itself
            self.files[url] = json.dumps(self.template(url, depth + 1))
        return url

    def _rewrite_functions(self, node: Any, base_url: str, depth: int,
                           type_key: str = "type") -> None:
        """Replace every ``get_file`` path and template ``type`` by its URL and read the file.

        As heatclient, a ``type`` naming a template is read wherever it
        is, so the member definition of a group (``resource_def``,
        ``resource``) may be a provider template too.
        """
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "get_file" and isinstance(value, str) and len(node) == 1:
                    url = resolve(value, base_url)
                    if url not in self.files:
                        self.files[url] = read_file_contents(url)
                    node[key] = url
                elif key == type_key and is_template(value):
                    node[key] = self._nested(value, base_url, depth)
                else:
                    self._rewrite_functions(value, base_url, depth, type_key)
        elif isinstance(node, list):
            for item in node:
                self._rewrite_functions(item, base_url, depth, type_key)

    def environment(self, path: str) -> str:
        """Read an environment file, gather its templates; return its URL."""
        parser, _ = _engine_templates()
        url = file_url(path)
        text = read_url(url, path)
        data = parser.parse(text, path, kind="environment", check_size=False)
        registry = data.get("resource_registry")
        if isinstance(registry, dict) and self._rewrite_registry(registry, url):
            text = json.dumps(data)
        self.files[url] = text
        return url

    def _rewrite_registry(self, registry: MutableMapping[str, Any], env_url: str) -> bool:
        base = registry.get("base_url") or env_url
        changed = False
        mappings: list[MutableMapping[str, Any]] = [registry]
        resources = registry.get("resources")
        mappings.extend(value for value in (resources.values()
                                            if isinstance(resources, dict) else ())
                        if isinstance(value, dict))
        for mapping in mappings:
            for key, value in mapping.items():
                if key != "base_url" and is_template(value):
                    mapping[key] = self._nested(value, base, 0)
                    changed = True
        return changed


def names_files(text: str) -> bool:
    """Return whether a template's text may name a file to gather (else it is sent as is)."""
    return "get_file" in text or any(suffix in text for suffix in TEMPLATE_SUFFIXES)


def gather(template_path: str, env_paths: Iterable[str] = (),
           text_when_alone: bool = True) -> dict[str, Any]:
    """Return ``{"template", "files", "environment_files"}`` for a create/validate request.

    ``text_when_alone``: a template naming no file is returned as its text
    (for an engine to parse); False always parses it here.
    """
    gatherer = FileGatherer()
    url = file_url(template_path)
    text = read_url(url, template_path)
    if names_files(text) or not text_when_alone:
        template = gatherer.template(url, filename=template_path, text=text)
    else:
        template = text
    environment_files = [gatherer.environment(path) for path in env_paths]
    return {"template": template, "files": dict(gatherer.files),
            "environment_files": environment_files}
