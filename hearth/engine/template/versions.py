"""The HOT template versions as tables: functions and structural keys.

Each version is a :class:`TemplateVersion` record derived from the previous
one, and states only what changed: entries of its ``functions`` table (a
Function class, or the :class:`Removed` marker), of its
``condition_functions`` table (used only inside ``conditions`` and the
``condition`` keys), and the keys it adds to the sections of a template.
The structure-schema helper reads the key sets; the snippet parser reads the
function tables.  Nothing else in Hearth branches on a version.
"""

from __future__ import annotations

import dataclasses
import datetime
import inspect
from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common import exception
from hearth.engine.template.functions import cfn, collections, conditions, references, strings
from hearth.engine.template.functions import yaql as yaql_functions
from hearth.engine.template.functions.descriptions import LISTING_DESCRIPTIONS
from hearth.engine.template.functions.removed import Invalid, Removed

#: the top-level key naming a HOT version
VERSION_KEY = "heat_template_version"
#: CloudFormation-style version keys, recognised only to be refused clearly
CFN_VERSION_KEYS = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")


@dataclasses.dataclass(frozen=True, eq=False)
class TemplateVersion:
    """One HOT version: its function tables and the keys its sections allow."""

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

    type = "hot"

    @property
    def name(self) -> str:
        """Return the version as Heat lists it: ``heat_template_version.<date>``."""
        return f"{VERSION_KEY}.{self.date}"

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
                "aliases": [f"{VERSION_KEY}.{alias}" for alias in self.aliases]}


def describe(function_class: type) -> str:
    """Return the description Heat's function listing gives a function class.

    A class missing from the table falls back to its docstring's first line.
    """
    if function_class in LISTING_DESCRIPTIONS:
        return LISTING_DESCRIPTIONS[function_class]
    return (inspect.getdoc(function_class) or "").splitlines()[0] if function_class.__doc__ else ""


_CFN_FUNCTION_NAMES = ("Ref", "Fn::GetAZs", "Fn::Join", "Fn::Split", "Fn::Replace",
                       "Fn::Base64", "Fn::MemberListToMap", "Fn::ResourceFacade")

HOT_2013_05_23 = TemplateVersion(
    date="2013-05-23",
    aliases=(),
    functions={
        "Fn::GetAZs": cfn.GetAZs,
        "get_param": references.GetParam,
        "get_resource": references.GetResource,
        "Ref": cfn.Ref,
        "get_attr": references.GetAttThenSelect,
        "Fn::Select": cfn.Select,
        "Fn::Join": cfn.Join,
        "list_join": strings.Join,
        "Fn::Split": cfn.Split,
        "str_replace": strings.Replace,
        "Fn::Replace": cfn.Replace,
        "Fn::Base64": cfn.Base64,
        "Fn::MemberListToMap": cfn.MemberListToMap,
        "resource_facade": references.ResourceFacade,
        "Fn::ResourceFacade": cfn.ResourceFacade,
        "get_file": references.GetFile,
    },
    condition_functions={},
    sections=frozenset({VERSION_KEY, "description", "parameter_groups", "parameters",
                        "resources", "outputs"}),
    resource_keys=frozenset({"type", "properties", "metadata", "depends_on", "update_policy",
                             "deletion_policy", "description"}),
    output_keys=frozenset({"value", "description"}),
    parameter_keys=frozenset({"type", "label", "description", "default", "hidden",
                              "constraints", "immutable"}),
    constraint_names=frozenset({"length", "range", "allowed_values", "allowed_pattern",
                                "custom_constraint"}),
    deletion_policies=frozenset({"Delete", "Retain", "Snapshot"}),
    parameter_types=frozenset({"string", "number", "json", "comma_delimited_list", "boolean"}),
)

HOT_2014_10_16 = HOT_2013_05_23.derive(
    "2014-10-16",
    functions={"get_attr": references.GetAtt,
               **{name: Removed for name in _CFN_FUNCTION_NAMES}},
    order=("get_attr", "get_file", "get_param", "get_resource", "list_join",
           "resource_facade", "str_replace", "Fn::Select"),
)

HOT_2015_04_30 = HOT_2014_10_16.derive(
    "2015-04-30",
    functions={"repeat": collections.Repeat, "digest": strings.Digest},
    order=("get_attr", "get_file", "get_param", "get_resource", "list_join", "repeat"),
)

HOT_2015_10_15 = HOT_2015_04_30.derive(
    "2015-10-15",
    functions={"get_attr": references.GetAttAllAttributes,
               "list_join": strings.JoinMultiple,
               "str_replace": strings.ReplaceJson,
               "str_split": strings.StrSplit,
               "Fn::Select": Removed},
)

HOT_2016_04_08 = HOT_2015_10_15.derive(
    "2016-04-08",
    functions={"map_merge": collections.MapMerge},
)

HOT_2016_10_14 = HOT_2016_04_08.derive(
    "2016-10-14", aliases=("newton",),
    functions={"repeat": collections.RepeatWithMap,
               "yaql": yaql_functions.Yaql,
               "map_replace": collections.MapReplace,
               "if": conditions.If},
    condition_functions={"get_param": references.GetParam,
                         "equals": conditions.Equals,
                         "not": conditions.Not,
                         "and": conditions.And,
                         "or": conditions.Or},
    sections={"conditions"},
    resource_keys={"external_id", "condition"},
    output_keys={"condition"},
    deletion_policies={"delete", "retain", "snapshot"},
)

HOT_2017_02_24 = HOT_2016_10_14.derive(
    "2017-02-24", aliases=("ocata",),
    functions={"filter": collections.Filter,
               "str_replace_strict": strings.ReplaceJsonStrict},
    constraint_names={"modulo"},
)

HOT_2017_09_01 = HOT_2017_02_24.derive(
    "2017-09-01", aliases=("pike",),
    functions={"make_url": strings.MakeURL,
               "list_concat": collections.ListConcat,
               "str_replace_vstrict": strings.ReplaceJsonVeryStrict,
               "list_concat_unique": collections.ListConcatUnique,
               "contains": collections.Contains,
               "repeat": collections.RepeatWithNestedLoop},
    condition_functions={"yaql": yaql_functions.Yaql,
                         "contains": collections.Contains},
)

HOT_2018_03_02 = HOT_2017_09_01.derive(
    "2018-03-02", aliases=("queens",),
    parameter_keys={"tags"},
)

HOT_2018_08_31 = HOT_2018_03_02.derive("2018-08-31", aliases=("rocky",))

HOT_2021_04_16 = HOT_2018_08_31.derive(
    "2021-04-16", aliases=("wallaby",),
    functions={"if": conditions.IfNullable},
)

_VERSIONS = (HOT_2013_05_23, HOT_2014_10_16, HOT_2015_04_30, HOT_2015_10_15, HOT_2016_04_08,
             HOT_2016_10_14, HOT_2017_02_24, HOT_2017_09_01, HOT_2018_03_02, HOT_2018_08_31,
             HOT_2021_04_16)

#: every accepted value of ``heat_template_version`` (dates and aliases)
_BY_VALUE = {value: version for version in _VERSIONS
             for value in (version.date, *version.aliases)}


def all_versions() -> list[TemplateVersion]:
    """Return every HOT version, oldest first."""
    return list(_VERSIONS)


def valid_names() -> list[str]:
    """Return every accepted ``heat_template_version.<value>`` name, sorted."""
    return sorted(f"{VERSION_KEY}.{value}" for value in _BY_VALUE)


def find_version(value: Any) -> TemplateVersion:
    """Return the version named by a value such as ``2016-10-14`` or ``newton``.

    The ``heat_template_version.`` prefix is accepted too; anything else
    raises InvalidTemplateVersion listing the valid names.
    """
    text = value.isoformat() if isinstance(value, datetime.date) else str(value)
    text = text.removeprefix(f"{VERSION_KEY}.")
    version = _BY_VALUE.get(text)
    if version is None:
        raise exception.InvalidTemplateVersion(
            explanation=f'"{VERSION_KEY}: {value}". "{VERSION_KEY}" should be one of: '
                        f'{", ".join(sorted(_BY_VALUE))}'
                        + exception.did_you_mean(text, _BY_VALUE))
    return version


def get_version(template: Mapping[str, Any]) -> TemplateVersion:
    """Return the version a template declares; raise InvalidTemplateVersion if none fits."""
    if not isinstance(template, Mapping):
        raise exception.InvalidTemplateVersion(
            explanation=f"a template must be a map, not {type(template).__name__}")
    for key in CFN_VERSION_KEYS:
        if key in template:
            raise exception.InvalidTemplateVersion(
                explanation=f'"{key}" (CloudFormation-format) templates are not supported; '
                            f'write a HOT template with "{VERSION_KEY}" (one of: '
                            f'{", ".join(valid_names())})')
    if VERSION_KEY not in template:
        raise exception.InvalidTemplateVersion(
            explanation=f'Template format version not found. Add "{VERSION_KEY}", one of: '
                        f'{", ".join(sorted(_BY_VALUE))}')
    return find_version(template[VERSION_KEY])
