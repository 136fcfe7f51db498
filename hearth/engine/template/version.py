"""The record of one template version (the tables are in :mod:`.versions`).

A :class:`TemplateVersion` holds a version's function tables, the keys its
sections allow, how its documents spell HOT's sections and keys, how it
reads parameter declarations and which pseudo parameters it has; it derives
the next version from its differences (:meth:`TemplateVersion.derive`) and
lists its functions as Heat does.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hearth.engine.template import parameters
from hearth.engine.template.functions.descriptions import LISTING_DESCRIPTIONS
from hearth.engine.template.functions.removed import Invalid, Removed
from hearth.engine.template.pseudo_parameters import HOT_PSEUDO_PARAMETERS, PseudoParameter

#: the top-level key naming a HOT version
VERSION_KEY = "heat_template_version"


@dataclasses.dataclass(frozen=True, eq=False)
class TemplateVersion:
    """One template version: its function tables, the keys it allows, how it spells them.

    ``sections``, ``resource_keys``, ``output_keys``, ``parameter_keys`` and
    ``parameter_types`` are written as the documents write them;
    ``open_definitions`` lets resource and output definitions hold other
    keys (ignored, as Heat does for CloudFormation templates).
    """

    date: str
    aliases: tuple[str, ...]
    functions: Mapping[str, Any]
    condition_functions: Mapping[str, Any]
    sections: frozenset[str]
    resource_keys: frozenset[str]
    output_keys: frozenset[str]
    parameter_keys: frozenset[str]
    constraint_names: frozenset[str]
    deletion_policies: frozenset[str]
    parameter_types: frozenset[str]
    key: str = VERSION_KEY
    type: str = "hot"
    spelling: Mapping[str, str] = dataclasses.field(default_factory=dict)
    open_definitions: bool = False
    parameter_reader: Callable[..., Any] = parameters.schema_from_definition
    pseudo_parameters: tuple[PseudoParameter, ...] = HOT_PSEUDO_PARAMETERS

    @property
    def name(self) -> str:
        """Return the version as Heat lists it: ``heat_template_version.<date>``."""
        return f"{self.key}.{self.date}"

    def spell(self, name: str) -> str:
        """Return how this version's documents write section or key ``name`` (a HOT name)."""
        return self.spelling.get(name, name)

    def parameter_type_name(self, spelled: str) -> str:
        """Return HOT's name of a parameter type as this version writes it (``Json``: json)."""
        return next((name for name, written in self.spelling.items() if written == spelled),
                    spelled)

    def derive(self, date: str, *, aliases: Iterable[str] = (),
               functions: Mapping[str, Any] | None = None,
               condition_functions: Mapping[str, Any] | None = None,
               order: Iterable[str] | None = None,
               **added_keys: Iterable[str]) -> TemplateVersion:
        """Return the next version: this one with the given differences.

        ``functions`` and ``condition_functions`` entries replace or add
        names; ``added_keys`` (``sections=``, ``resource_keys=`` ...) are
        added to the key sets of the same name.  The function table keeps
        the order Heat lists it in: the previous order plus additions, or
        ``order`` (names first, the rest after) where Heat restated it.
        """
        grown = {field: getattr(self, field) | frozenset(keys)
                 for field, keys in added_keys.items()}
        table = {**self.functions, **(functions or {})}
        if order is not None:
            first = [name for name in order if name in table]
            table = {name: table[name] for name in [*first, *(n for n in table
                                                             if n not in first)]}
        return dataclasses.replace(
            self, date=date, aliases=tuple(aliases),
            functions=table,
            condition_functions={**self.condition_functions, **(condition_functions or {})},
            **grown)

    def is_function(self, name: str) -> bool:
        """Return whether ``name`` is a usable (not removed) function here."""
        entry = self.functions.get(name)
        return entry is not None and entry is not Removed

    def function_list(self, with_condition_functions: bool = False) -> list[dict[str, str]]:
        """List the usable functions as ``{"functions": name, "description": ...}``.

        With ``with_condition_functions`` the condition functions are listed
        too (they replace normal functions of the same name).
        """
        table = dict(self.functions)
        if with_condition_functions:
            table.update(self.condition_functions)
        return [{"functions": name, "description": describe(entry)}
                for name, entry in table.items() if entry not in (Removed, Invalid)]

    def as_listing(self) -> dict[str, Any]:
        """Return the row of ``template-version-list``, as Heat's API returns it."""
        return {"version": self.name, "type": self.type,
                "aliases": [f"{self.key}.{alias}" for alias in self.aliases]}


def describe(function_class: type) -> str:
    """Return the description Heat's function listing gives a function class.

    A class missing from the table falls back to its docstring's first line.
    """
    if function_class in LISTING_DESCRIPTIONS:
        return LISTING_DESCRIPTIONS[function_class]
    return (inspect.getdoc(function_class) or "").splitlines()[0] if function_class.__doc__ else ""
