"""ext_pillar http_json: fetch a JSON object over HTTP(S) (Salt's, removed from core in 3008).

``- http_json: {url: 'http://cmdb/pillar/%s', with_grains: true, timeout: 10}``
or ``- http_json: 'http://cmdb/pillar/%s'``.  ``%s`` becomes the agent id
(URL-quoted); with ``with_grains``, ``<grain>`` placeholders become that
grain's value.  A connection error, an HTTP error status, a timeout or a
body that is not a JSON object is an error naming the URL.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from hearth.common.exception import CommandExecutionError

GRAIN_PLACEHOLDER = re.compile(r"<(\w+)>")


def _url(url: str, minion_id: str, with_grains: bool) -> str:
    url = url.replace("%s", urllib.parse.quote(minion_id))
    if not with_grains:
        return url

    def grain(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in __grains__:  # noqa: F821
            raise CommandExecutionError(f"http_json: grain {name!r} of {url} is not set")
        return urllib.parse.quote(str(__grains__[name]))  # noqa: F821

    return GRAIN_PLACEHOLDER.sub(grain, url)


def ext_pillar(minion_id: str, pillar: Any, url: str, with_grains: bool = False,
               timeout: float = 30.0, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Return the JSON object served at ``url``."""
    url = _url(str(url), minion_id, bool(with_grains))
    request = urllib.request.Request(url, headers={"Accept": "application/json",
                                                   **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=float(timeout)) as response:
            body = response.read()
    except urllib.error.HTTPError as error:
        raise CommandExecutionError(f"http_json: GET {url} answered {error.code} "
                                    f"{error.reason}") from error
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise CommandExecutionError(f"http_json: GET {url} failed: {reason}") from error
    try:
        data = json.loads(body)
    except ValueError as error:
        raise CommandExecutionError(f"http_json: the body of {url} is not JSON: {error}") \
            from error
    if not isinstance(data, dict):
        raise CommandExecutionError(
            f"http_json: the body of {url} is a JSON {type(data).__name__}, not an object")
    return data
