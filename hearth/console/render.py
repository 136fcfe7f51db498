"""The console's templates: Jinja2 with every value escaped, and the filters pages use.

Autoescaping is on for every template, whatever its name, so a stack name,
an output, an event reason or a grain is text wherever it is shown; no
template marks anything ``safe``.  A key an API answer leaves out (an
optional field) renders as nothing.  Structured values are shown as YAML
text (escaped like any other).
"""

from __future__ import annotations

import functools
import json
import urllib.parse
from typing import Any

import jinja2
import yaml

from hearth.console.topology import status_class


def as_text(value: Any) -> str:
    """Return a value as a person reads it: strings as they are, the rest as YAML."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)  # as Salt's outputters show them (True, None)
    try:
        return yaml.safe_dump(value, default_flow_style=False, sort_keys=False,
                              allow_unicode=True).rstrip("\n").removesuffix("\n...")
    except yaml.YAMLError:
        return json.dumps(value, default=str, indent=2)


def url_part(value: Any) -> str:
    """Return ``value`` quoted as one path segment of a URL."""
    return urllib.parse.quote(str(value), safe="")


@functools.cache
def environment() -> jinja2.Environment:
    """Return the console's Jinja2 environment (templates from the package)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("hearth.console", "templates"),
                             autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(as_text=as_text, url_part=url_part, status_class=status_class)
    return env


def render(template_name: str, /, **context: Any) -> str:
    """Return the HTML of template ``template_name`` with ``context``."""
    return environment().get_template(template_name).render(**context)
