"""Which projects may publish which functions to which agents: Salt's ``publisher_acl``.

The configuration (``[api] publisher_acl_file``, YAML) maps a project
(a glob on the project id of the API token) to Salt's list of rules::

    proj-web:
      - test.ping               # a function (regular expression) on any agent
      - 'web*':                 # a target expression (compound syntax) ...
          - cmd.run             # ... and the functions allowed on its agents
          - 'pkg[.].*'
      - 'G@role:db and not db9':
          - test.*

Semantics are Salt's: function patterns are regular expressions matched
at the start of the name (``re.match``); a job is allowed when one rule
allows its function and every agent the job targets is an agent the rule's
target selects.  Rules of every project glob that matches are combined.  A
project no glob matches may publish nothing.  Salt's argument restrictions
(``{fun: {args: ...}}``) are not supported and are refused when loading.

Key management is Salt's *wheel* (``salt-key``'s functions ``key.list_all``,
``key.accept``, ``key.reject``, ``key.delete``, ``key.finger``,
``key.finger_master``), granted as Salt's ``external_auth`` grants it::

    proj-admins:
      - '@wheel'                # every key function
    proj-ops:
      - '@wheel':               # only these (regular expressions, as above)
          - key.list_all
          - 'key.finger.*'

A wheel function acts on the master's keys, not on a target: a grant is
for every key.

Rule targets are matched on what the master knows of each agent (its id,
the nodegroups, the grains recorded master-side), never on what an agent
says about itself unless ``[master] trust_agent_grains`` is on: the caller
(:class:`~hearth.jobservice.service.JobService`) hands :meth:`PublisherAcl.check`
those facts.  Reading an agent's pillar needs the right to run
:data:`PILLAR_READ_FUNCTION` on it.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hearth.agent.targeting import AgentFacts, select
from hearth.common import exception

ANY_TARGET = "*"
#: The entry that grants wheel (key management) functions, as in Salt's external_auth.
WHEEL = "@wheel"
#: Reading an agent's pillar is allowed where running this function on it is.
PILLAR_READ_FUNCTION = "pillar.items"


@dataclass(frozen=True)
class AclRule:
    """Functions (regular expressions) allowed on the agents ``target`` selects."""

    target: str
    functions: tuple[str, ...]

    def allows_function(self, function: str) -> bool:
        """Return whether one of the rule's patterns matches ``function`` (``re.match``)."""
        return any(re.match(pattern, function) for pattern in self.functions)

    def covers(self, targeted: Iterable[str], agents: list[AgentFacts],
               nodegroups: Mapping[str, Any] | None) -> bool:
        """Return whether every targeted agent is one the rule's target selects."""
        if self.target == ANY_TARGET:
            return True
        allowed = set(select(self.target, "compound", agents, nodegroups))
        return set(targeted) <= allowed


class PublisherAcl:
    """The rules of every project glob, checked before a job is published."""

    def __init__(self, rules: Mapping[str, list[AclRule]],
                 wheel: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.rules = dict(rules)
        #: project glob -> the wheel functions (regular expressions) it is granted
        self.wheel = dict(wheel or {})

    @classmethod
    def from_data(cls, data: Any, source: str = "publisher_acl") -> PublisherAcl:
        """Build the ACL from Salt-shaped data; raise :class:`InvalidPublisherAcl` naming where."""
        if not isinstance(data, Mapping):
            raise exception.InvalidPublisherAcl(source=source, where="top level",
                                                reason="expected a map of project globs")
        parsed = {str(project): _parse_rules(entries, f"{source}: {project}")
                  for project, entries in data.items()}
        return cls({project: rules for project, (rules, _) in parsed.items()},
                   {project: wheel for project, (_, wheel) in parsed.items() if wheel})

    @classmethod
    def from_file(cls, path: str) -> PublisherAcl:
        """Read the ACL from a YAML file."""
        # lazy: yaml only when an ACL file is read (stackctl imports JobService)
        import yaml

        try:
            with open(path, encoding="utf-8") as handle:
                data = yaml.safe_load(handle)
        except (OSError, yaml.YAMLError) as error:
            raise exception.InvalidPublisherAcl(source=path, where="file",
                                                reason=str(error)) from None
        return cls.from_data(data or {}, path)

    def rules_for(self, project: str) -> list[AclRule]:
        """Return the rules of every project glob matching ``project``."""
        return [rule for glob, rules in self.rules.items()
                if fnmatch.fnmatchcase(project, glob) for rule in rules]

    def targetable(self, project: str, agents: list[AgentFacts],
                   nodegroups: Mapping[str, Any] | None = None) -> list[str]:
        """Return the sorted ids of the ``agents`` some rule lets ``project`` target.

        Any function counts: a project that may only ``test.ping`` an agent
        may still learn that it is there.  No rule, no agent.
        """
        selected: set[str] = set()
        for rule in self.rules_for(project):
            if rule.target == ANY_TARGET:
                return sorted(agent.id for agent in agents)
            selected.update(select(rule.target, "compound", agents, nodegroups))
        return sorted(selected)

    def refusal(self, project: str, function: str, targeted: list[str],
                agents: list[AgentFacts],
                nodegroups: Mapping[str, Any] | None = None) -> str | None:
        """Return why ``project`` may not run ``function`` on ``targeted`` (None: it may).

        ``agents`` are the facts the rules' targets match on.
        """
        rules = [rule for rule in self.rules_for(project) if rule.allows_function(function)]
        if not rules:
            return f"no publisher_acl rule of the project allows {function}."
        if any(rule.covers(targeted, agents, nodegroups) for rule in rules):
            return None
        targets = ", ".join(repr(rule.target) for rule in rules)
        outside = ", ".join(_outside(rules, targeted, agents, nodegroups))
        return (f"its publisher_acl allows {function} only on agents selected by {targets}, "
                f"and this target also selects {outside}.")

    def check(self, project: str, function: str, targeted: list[str],
              agents: list[AgentFacts], nodegroups: Mapping[str, Any] | None = None,
              where: str = "") -> None:
        """Return if ``project`` may run ``function`` on ``targeted``; else raise JobRefused.

        ``where`` names the job's target in the refusal (``'web*' (glob)``).
        """
        reason = self.refusal(project, function, targeted, agents, nodegroups)
        if reason is not None:
            where = where or ", ".join(targeted)
            raise exception.JobRefused(f"project {project}", f"run {function} on {where}",
                                       reason, function=function, target=where)

    def check_pillar_read(self, project: str, agent_id: str, agents: list[AgentFacts],
                          nodegroups: Mapping[str, Any] | None = None) -> None:
        """Return if ``project`` may read ``agent_id``'s pillar; else raise JobRefused."""
        reason = self.refusal(project, PILLAR_READ_FUNCTION, [agent_id], agents, nodegroups)
        if reason is not None:
            raise exception.JobRefused(
                f"project {project}", f"read the pillar of agent {agent_id}",
                f"reading an agent's pillar needs the right to run {PILLAR_READ_FUNCTION} "
                f"on it: {reason}", function=PILLAR_READ_FUNCTION, target=agent_id)


    def check_wheel(self, project: str, function: str, action: str) -> None:
        """Return if ``project`` is granted the wheel ``function``; else raise JobRefused.

        ``action`` says what was asked, in the refusal (``accept the key of web1``).
        """
        granted = [pattern for glob, patterns in self.wheel.items()
                   if fnmatch.fnmatchcase(project, glob) for pattern in patterns]
        if any(re.match(pattern, function) for pattern in granted):
            return
        raise exception.JobRefused(
            f"project {project}", action,
            f"agent keys are the master operator's; no '{WHEEL}' entry of the project's "
            f"publisher_acl grants {function}.", function=function)


def read_acl_file(path: str) -> PublisherAcl:
    """Return the ACL in the YAML file ``path`` (read again only when the file changes)."""
    try:
        modified = os.stat(path).st_mtime_ns
    except OSError as error:
        raise exception.InvalidPublisherAcl(source=path, where="file",
                                            reason=error.strerror) from None
    return _read_cached(path, modified)


@functools.lru_cache(maxsize=4)
def _read_cached(path: str, modified: int) -> PublisherAcl:
    return PublisherAcl.from_file(path)


def _outside(rules: list[AclRule], targeted: list[str], agents: list[AgentFacts],
             nodegroups: Mapping[str, Any] | None) -> list[str]:
    """Return the targeted agents no single rule covers (sorted)."""
    allowed: set[str] = set()
    for rule in rules:
        allowed |= set(select(rule.target, "compound", agents, nodegroups))
    return sorted(set(targeted) - allowed)


def _parse_rules(entries: Any, where: str) -> tuple[list[AclRule], tuple[str, ...]]:
    """Return a project's publish rules and its wheel grants (``'@wheel'`` entries)."""
    if not isinstance(entries, list):
        raise exception.InvalidPublisherAcl(source=where, where="rules",
                                            reason="expected a list of rules")
    rules = []
    wheel: list[str] = []
    for position, entry in enumerate(entries):
        place = f"rule {position + 1}"
        if entry == WHEEL:
            wheel.append(".*")
        elif isinstance(entry, Mapping) and list(entry) == [WHEEL]:
            wheel.extend(_pattern(function, where, place)
                         for function in _functions(entry[WHEEL], WHEEL, where, place))
        elif isinstance(entry, str):
            rules.append(AclRule(ANY_TARGET, (_pattern(entry, where, place),)))
        elif isinstance(entry, Mapping) and len(entry) == 1:
            (target, functions), = entry.items()
            rules.append(AclRule(str(target), tuple(
                _pattern(f, where, place)
                for f in _functions(functions, f"target {target!r}", where, place))))
        else:
            raise exception.InvalidPublisherAcl(
                source=where, where=place,
                reason="expected a function pattern or a one-key map {target: [functions]}")
    return rules, tuple(wheel)


def _functions(functions: Any, of: str, where: str, place: str) -> list[str]:
    """Return the function names listed under ``of`` (one name alone is a list of one)."""
    functions = [functions] if isinstance(functions, str) else functions
    if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
        raise exception.InvalidPublisherAcl(
            source=where, where=place,
            reason=f"the functions of {of} must be a list of names "
                   f"(argument restrictions are not supported)")
    return functions


def _pattern(text: str, where: str, place: str) -> str:
    try:
        re.compile(text)
    except re.error as error:
        raise exception.InvalidPublisherAcl(
            source=where, where=place,
            reason=f"bad function pattern {text!r}: {error}") from None
    return text
