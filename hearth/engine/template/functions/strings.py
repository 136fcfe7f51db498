"""Functions that build or split strings.

Messages of run-time errors follow Heat 27.0.1 (checked with the oracle).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from hearth.engine.template.function import Function, resolve
from hearth.engine.template.functions.arguments import is_list, is_map, unpack_list, unpack_map


def to_json(value: Any) -> str:
    """Serialise a list or map as Heat does when it embeds one in a string."""
    return json.dumps(value, sort_keys=True)


# --- str_replace -----------------------------------------------------------

class Replace(Function):
    """Replace placeholders in a string; values must be strings or numbers."""

    usage = '{"template": string, "params": {placeholder: value, ...}}'

    def _arguments(self, args: Any) -> tuple[Any, Any]:
        if not is_map(args):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map: {self.usage}')
        parts = unpack_map(self, args, ("template", "params"), (), self.usage)
        return parts["template"], parts["params"]

    def validate(self) -> None:
        """Check the shape: a map with template and params (a map)."""
        super().validate()
        if isinstance(self.args, Function):
            return
        _template, params = self._arguments(self.args)
        if not isinstance(params, Function) and not is_map(params):
            raise self.error(f'"{self.fn_name}" parameters must be a mapping')

    def replacement(self, key: Any, value: Any) -> str:
        """Return the text a param value becomes (None becomes '')."""
        if value is None:
            return ""
        if isinstance(value, (str, int, float, bool)):
            return str(value)
        raise self.error(f'"{self.fn_name}" params must be strings or numbers, param {key} is '
                         f'not valid')

    def check(self, template: str, params: Mapping[str, Any]) -> None:
        """Hook for the strict variants: refuse params they do not allow."""

    def result(self) -> str:
        """Substitute every param, longest placeholder first, in one pass."""
        template, params = self._arguments(resolve(self.args))
        if not isinstance(template, str):
            raise self.error(f'"{self.fn_name}" template must be a string')
        if not is_map(params):
            raise self.error(f'"{self.fn_name}" parameters must be a mapping')
        texts = {str(key): self.replacement(key, value) for key, value in params.items()}
        self.check(template, params)
        keys = sorted((key for key in texts if key), key=lambda k: (-len(k), k))
        if not keys:
            return template
        pattern = re.compile("|".join(re.escape(key) for key in keys))
        return pattern.sub(lambda match: texts[match.group(0)], template)


class ReplaceJson(Replace):
    """Replace placeholders in a string; list and map values become JSON."""

    def replacement(self, key: Any, value: Any) -> str:
        """Return the text a param value becomes; lists and maps as JSON."""
        if is_list(value) or is_map(value):
            return to_json(value)
        return super().replacement(key, value)


class ReplaceJsonStrict(ReplaceJson):
    """Replace placeholders in a string; every placeholder must occur."""

    def check(self, template: str, params: Mapping[str, Any]) -> None:
        """Refuse params whose placeholder is not in the template."""
        missing = [str(key) for key in params if str(key) not in template]
        if missing:
            raise self.error("The following params were not found in the template: "
                             + ",".join(missing))


class ReplaceJsonVeryStrict(ReplaceJsonStrict):
    """Replace placeholders in a string; every value must be non-empty too."""

    def check(self, template: str, params: Mapping[str, Any]) -> None:
        """Refuse params that are None or empty as well as missing ones."""
        for key, value in params.items():
            if value is None or (not isinstance(value, (bool, int, float)) and not value):
                raise self.error(f"{self.fn_name} has an undefined or empty value for param "
                                 f"{key}, must be a defined non-empty value")
        super().check(template, params)


# --- list_join -------------------------------------------------------------

class Join(Function):
    """Join a list of strings with a delimiter."""

    usage = '"list_join" : [ " ", [ "str1", "str2"]]'
    maximum_lists: int | None = 1

    def _arguments(self, args: Any) -> tuple[Any, list[Any]]:
        maximum = self.maximum_lists and self.maximum_lists + 1
        if not is_list(args) or len(args) < 2 or (maximum and len(args) > maximum):
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be: {self.usage}')
        return args[0], list(args[1:])

    def validate(self) -> None:
        """Check the shape and, when literal, the delimiter and items."""
        super().validate()
        if isinstance(self.args, Function):
            return
        delimiter, lists = self._arguments(self.args)
        if not isinstance(delimiter, (str, Function)):
            raise self.error(f'Delimiter for "{self.fn_name}" must be a string')
        for value in lists:
            if not isinstance(value, Function) and not is_list(value):
                raise self.error(f'"{self.fn_name}" must operate on a list')
            for item in value if is_list(value) else ():
                if not isinstance(item, Function):
                    self.text(item)

    def text(self, item: Any) -> str:
        """Return the text of one item to join (None becomes '')."""
        if item is None:
            return ""
        if isinstance(item, str):
            return item
        raise self.error("Items to join must be strings not " + repr(item))

    def result(self) -> str:
        """Return the items joined by the delimiter."""
        delimiter, lists = self._arguments(resolve(self.args))
        if not isinstance(delimiter, str):
            raise self.error(f'Delimiter for "{self.fn_name}" must be a string')
        items: list[str] = []
        for value in lists:
            if value is None:
                continue
            if not is_list(value):
                raise self.error(f'"{self.fn_name}" must operate on a list')
            items.extend(self.text(item) for item in value)
        return delimiter.join(items)


class JoinMultiple(Join):
    """Join one or more lists of strings with a delimiter; lists/maps become JSON."""

    usage = '"list_join" : [ " ", [ "str1", "str2"], [ "str3", ...], ...]'
    maximum_lists = None

    def text(self, item: Any) -> str:
        """Return the text of one item; lists and maps as JSON."""
        if is_list(item) or is_map(item):
            return to_json(item)
        if item is None or isinstance(item, str):
            return super().text(item)
        raise self.error("Items to join must be string, map or list not " + repr(item))


# --- str_split, digest -----------------------------------------------------

class StrSplit(Function):
    """Split a string by a delimiter, optionally returning one item."""

    usage = '"str_split" : [ ",", "apples,pears", <index>]'

    def validate(self) -> None:
        """Check the number of arguments."""
        super().validate()
        if not isinstance(self.args, Function):
            self._arguments(self.args)

    def _arguments(self, args: Any) -> list[Any]:
        if not is_list(args) or not 2 <= len(args) <= 3:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be: {self.usage}')
        return list(args)

    def result(self) -> Any:
        """Return the list of parts, or the part at the index."""
        delimiter, text, *index = self._arguments(resolve(self.args))
        if text is None:
            return None
        if not isinstance(text, str):
            raise self.error(f"'{type(text).__name__}' object has no attribute 'split'")
        if not isinstance(delimiter, str):
            raise self.error(f'Delimiter for "{self.fn_name}" must be a string')
        if not delimiter:
            raise self.error("empty separator")
        parts = text.split(delimiter)
        if not index:
            return parts
        try:
            return parts[int(index[0])]
        except (ValueError, TypeError):
            raise self.error(f'Incorrect index to "{self.fn_name}" should be an integer') from None
        except IndexError:
            raise self.error(f'Incorrect index to "{self.fn_name}" should be between 0 and '
                             f'{len(parts) - 1}') from None


class Digest(Function):
    """Return the hex digest of a string with the named algorithm."""

    usage = "[algorithm, value]"

    def validate(self) -> None:
        """Check the shape (Heat checks the algorithm only at run time)."""
        super().validate()
        if not isinstance(self.args, Function):
            unpack_list(self, self.args, 2, 2, self.usage)

    def _algorithm(self, algorithm: Any) -> str:
        if not isinstance(algorithm, str):
            raise self.error("Algorithm must be a string")
        if algorithm not in hashlib.algorithms_available:
            raise self.error("Algorithm must be one of {"
                             + ", ".join(repr(a) for a in sorted(hashlib.algorithms_available))
                             + "}")
        return algorithm

    def result(self) -> str:
        """Return the hex digest of the value (encoded as latin-1)."""
        algorithm, value = unpack_list(self, resolve(self.args), 2, 2, self.usage)
        digest = hashlib.new(self._algorithm(algorithm))
        if not isinstance(value, str):
            raise self.error("The value to digest must be a string")
        digest.update(value.encode("latin-1"))
        return digest.hexdigest()


# --- make_url --------------------------------------------------------------

class MakeURL(Function):
    """Build a URL from its parts, escaping each one."""

    parts = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")
    usage = "{scheme, username, password, host, port, path, query: {}, fragment}"

    def validate(self) -> None:
        """Check the keys and, when literal, the port and scheme."""
        super().validate()
        if not isinstance(self.args, Function):
            self._arguments(self.args, literal_only=True)

    def _arguments(self, args: Any, literal_only: bool = False) -> dict[str, Any]:
        if not is_map(args):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map: {self.usage}')
        unknown = sorted(str(key) for key in args if key not in self.parts)
        if unknown:
            raise self.error(f'Invalid arguments to "{self.fn_name}": {", ".join(unknown)}')
        port = args.get("port")
        if port is not None and not isinstance(port, Function):
            self._check_port(port, args)
        scheme = args.get("scheme")
        if isinstance(scheme, str) and ":" in scheme:
            raise self.error('URL "scheme" should not contain \':\'')
        query = args.get("query")
        if query is not None and not isinstance(query, Function) and not is_map(query):
            raise self.error('Invalid URL "query" for make_url: must be a map')
        return dict(args)

    def _check_port(self, port: Any, args: Any) -> int:
        try:
            number = int(port)
        except (TypeError, ValueError):
            raise self.error(f'Invalid URL port "{port}" for {self.fn_name} called with '
                             f'{dict(args)!r}') from None
        if not 1 <= number <= 65535:
            raise self.error(f"Invalid URL port {number}, must be in range 1-65535")
        return number

    def result(self) -> str:
        """Return the URL."""
        args = self._arguments(resolve(self.args))
        host = str(args.get("host") or "")
        try:
            if ipaddress.ip_address(host).version == 6:
                host = f"[{host}]"
        except ValueError:
            host = urllib.parse.quote(host, safe="")
        netloc = host
        if args.get("port") is not None:
            netloc += f":{self._check_port(args['port'], args)}"
        if args.get("username") is not None:
            userinfo = urllib.parse.quote(str(args["username"]), safe="")
            if args.get("password") is not None:
                userinfo += ":" + urllib.parse.quote(str(args["password"]), safe="")
            netloc = f"{userinfo}@{netloc}"
        query = urllib.parse.urlencode(list((args.get("query") or {}).items()))  # order given
        return urllib.parse.urlunsplit((
            str(args.get("scheme") or ""), netloc,
            urllib.parse.quote(str(args.get("path") or "")), query,
            urllib.parse.quote(str(args.get("fragment") or ""))))
