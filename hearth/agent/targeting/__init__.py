"""Select agents by a target expression, with Salt's target types and semantics.

Public interface::

    compile_target(target, target_type, nodegroups=None) -> Predicate   # checks once
    matches(target, target_type, facts, nodegroups=None) -> bool
    select(target, target_type, agents, nodegroups=None) -> list[str]   # sorted ids

:data:`TARGET_TYPES` lists Salt's ``tgt_type`` names that Hearth supports.
Values compare as Salt compares them: ids case-sensitively (globs with
fnmatch, regular expressions with ``re.match``, anchored at the start only);
grain and pillar values as lower-case text, so ``G@virtual:true`` matches
``True`` and ``G@num_cpus:4`` matches ``4``; in a list grain any member may
match.  An expression that cannot select anything raises
:class:`~hearth.common.exception.InvalidTarget` saying why, where Salt
would log an error and match nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hearth.agent.targeting.compound import compile_compound
from hearth.agent.targeting.facts import AgentFacts, Predicate
from hearth.agent.targeting.matchers import LEAF_COMPILERS
from hearth.agent.targeting.nodegroups import expand_nodegroup
from hearth.common.exception import InvalidTarget, did_you_mean

__all__ = ["AgentFacts", "Predicate", "TARGET_TYPES", "compile_target", "matches", "select"]


def _compile_nodegroup(target: Any, nodegroups: Mapping[str, Any] | None) -> Predicate:
    if not isinstance(target, str):
        raise ValueError(f"a nodegroup target is a name, not {type(target).__name__}")
    return compile_compound(expand_nodegroup(target, nodegroups), nodegroups)


def _simple(compiler: Callable[..., Predicate]) -> Callable[[Any, Any], Predicate]:
    return lambda target, nodegroups: compiler(target)


#: Salt's tgt_type name -> compiler(target, nodegroups) -> Predicate.
TARGET_COMPILERS: dict[str, Callable[[Any, Mapping[str, Any] | None], Predicate]] = {
    **{name: _simple(compiler) for name, compiler in LEAF_COMPILERS.items()},
    "compound": compile_compound,
    "nodegroup": _compile_nodegroup,
}

#: The target types Hearth supports, by Salt's names.
TARGET_TYPES: tuple[str, ...] = tuple(TARGET_COMPILERS)


def compile_target(target: Any, target_type: str = "glob",
                   nodegroups: Mapping[str, Any] | None = None) -> Predicate:
    """Check ``target`` once and return the predicate that answers for one agent.

    :raises InvalidTarget: unknown type, empty or malformed expression,
        unknown or cyclic nodegroup.
    """
    compiler = TARGET_COMPILERS.get(target_type)
    if compiler is None:
        raise InvalidTarget(target, target_type,
                            f"unknown target type; use one of {', '.join(TARGET_TYPES)}."
                            f"{did_you_mean(target_type, TARGET_TYPES)}")
    if target in ("", [], ()) or target is None:
        raise InvalidTarget(target, target_type, "the target is empty")
    try:
        return compiler(target, nodegroups)
    except ValueError as error:
        raise InvalidTarget(target, target_type, str(error)) from None


def matches(target: Any, target_type: str, facts: AgentFacts,
            nodegroups: Mapping[str, Any] | None = None) -> bool:
    """Return whether ``target`` of ``target_type`` selects the agent described by ``facts``."""
    return compile_target(target, target_type, nodegroups)(facts)


def select(target: Any, target_type: str, agents: Iterable[AgentFacts],
           nodegroups: Mapping[str, Any] | None = None) -> list[str]:
    """Return the sorted ids of the ``agents`` that ``target`` selects."""
    predicate = compile_target(target, target_type, nodegroups)
    return sorted(agent.id for agent in agents if predicate(agent))
