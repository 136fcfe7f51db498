"""One compiler per simple target type: a pattern in, a predicate on one agent out.

:data:`LEAF_COMPILERS` maps Salt's ``tgt_type`` names to these compilers;
:data:`COMPOUND_ENGINES` maps the letters of compound words (``G@``,
``E@``...) to the same names.  A compiler checks its pattern once and raises
``ValueError`` with the reason when it cannot select anything (a regular
expression that does not compile, a grain expression without a ``:``);
:mod:`hearth.agent.targeting` turns that into ``InvalidTarget``.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Callable, Iterable
from typing import Any

from hearth.agent.targeting.facts import AgentFacts, Predicate
from hearth.agent.targeting.nested import match_nested

DEFAULT_DELIMITER = ":"


def compile_glob(pattern: Any, delimiter: str = DEFAULT_DELIMITER) -> Predicate:
    """Select agents whose id matches the shell-style ``pattern`` (case-sensitive)."""
    text = _text(pattern, "a glob")
    return lambda facts: fnmatch.fnmatchcase(facts.id, text)


def compile_pcre(pattern: Any, delimiter: str = DEFAULT_DELIMITER) -> Predicate:
    """Select agents whose id matches the regular expression from its start (``re.match``)."""
    regex = _regex(_text(pattern, "a regular expression"))
    return lambda facts: regex.match(facts.id) is not None


def compile_list(pattern: Any, delimiter: str = DEFAULT_DELIMITER) -> Predicate:
    """Select agents named in a comma-separated string or a list (no spaces are stripped)."""
    if isinstance(pattern, str):
        names = frozenset(pattern.split(",")) | {pattern}
    elif isinstance(pattern, (list, tuple)):
        names = frozenset(str(name) for name in pattern)
    else:
        raise ValueError(f"a list target is a comma-separated string or a list, "
                         f"not {type(pattern).__name__}")
    return lambda facts: facts.id in names


def _nested(source: str, mode: str) -> Callable[[Any, str], Predicate]:
    """Build the compiler of a ``key:value`` target on grains or pillar."""

    def compile_nested(pattern: Any, delimiter: str = DEFAULT_DELIMITER) -> Predicate:
        text = _text(pattern, f"a {source} expression")
        if delimiter not in text:
            raise ValueError(f"a {source} target needs a key and a value separated by "
                             f"{delimiter!r}, e.g. 'os{delimiter}Ubuntu'")
        if mode == "pcre":
            _regex(text.rsplit(delimiter, 1)[1].lower())
        return lambda facts: match_nested(getattr(facts, source), text, delimiter, mode)

    compile_nested.__doc__ = f"Select agents whose {source} match ``key:value`` ({mode})."
    return compile_nested


def compile_ipcidr(pattern: Any, delimiter: str = DEFAULT_DELIMITER) -> Predicate:
    """Select agents with an address (grains ``ipv4``/``ipv6``) equal to or inside ``pattern``."""
    text = _text(pattern, "an address or network")
    try:
        wanted: Any = ipaddress.ip_address(text)
    except ValueError:
        try:
            wanted = ipaddress.ip_network(text)
        except ValueError as error:
            raise ValueError(f"not an IP address or CIDR network: {error}") from None
    grain = f"ipv{wanted.version}"

    def has_address(facts: AgentFacts) -> bool:
        addresses = facts.grains.get(grain) or ()
        if isinstance(addresses, str):
            addresses = [addresses]
        if isinstance(wanted, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
            return str(wanted) in addresses
        return any(address in wanted for address in _addresses(addresses))

    return has_address


def _addresses(values: Iterable[Any]) -> Iterable[Any]:
    for value in values:
        try:
            yield ipaddress.ip_address(str(value))
        except ValueError:
            continue


def _text(pattern: Any, what: str) -> str:
    if not isinstance(pattern, str):
        raise ValueError(f"{what} must be a string, not {type(pattern).__name__}")
    return pattern


def _regex(text: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as error:
        raise ValueError(f"bad regular expression {text!r}: {error}") from None


#: Salt's tgt_type name -> compiler of that simple (non-compound) target type.
LEAF_COMPILERS: dict[str, Callable[..., Predicate]] = {
    "glob": compile_glob,
    "pcre": compile_pcre,
    "list": compile_list,
    "grain": _nested("grains", "glob"),
    "grain_pcre": _nested("grains", "pcre"),
    "pillar": _nested("pillar", "glob"),
    "pillar_pcre": _nested("pillar", "pcre"),
    "pillar_exact": _nested("pillar", "exact"),
    "ipcidr": compile_ipcidr,
}

#: Compound word prefix letter (``G@...``) -> tgt_type name; None: known to Salt, not supported.
COMPOUND_ENGINES: dict[str, str | None] = {
    "G": "grain",
    "P": "grain_pcre",
    "I": "pillar",
    "J": "pillar_pcre",
    "L": "list",
    "E": "pcre",
    "S": "ipcidr",
    "N": "nodegroup",
    "R": None,  # range (SECO range server)
    "T": None,  # resource (Salt 3008)
    "M": None,  # managing minion (Salt 3008)
}

#: Engines whose word may name its own delimiter before the ``@`` (``G;@a;b``).
DELIMITED_ENGINES = frozenset("GPIJ")
