"""The template versions as tables: functions, structural keys, spelling.

Each version is a :class:`~hearth.engine.template.version.TemplateVersion`
record derived from the previous one, and states only what changed:
entries of its ``functions`` table (a Function class, or the
:class:`Removed` marker), of its ``condition_functions`` table (used only
inside ``conditions`` and the ``condition`` keys), and the keys it adds to
the sections of a template.
The structure-schema helper reads the key sets; the snippet parser reads the
function tables.  Nothing else in Hearth branches on a version.

Two formats share the records: HOT (``heat_template_version``) and
CloudFormation (``HeatTemplateFormatVersion: 2012-12-12`` and its successor
``AWSTemplateFormatVersion: 2010-09-09``, as Heat reads them).  The engine
names sections and keys the HOT way; a version's ``spelling`` says how its
documents write each (``resources`` is ``Resources``), its
``parameter_reader`` how a parameter declaration becomes a schema, and its
``pseudo_parameters`` which names the stack's identity has.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

from hearth.common import exception
from hearth.common.located import line_of
from hearth.engine.template import parameters_cfn
from hearth.engine.template.functions import cfn, collections, conditions, references, strings
from hearth.engine.template.functions import yaql as yaql_functions
from hearth.engine.template.functions.removed import Removed
from hearth.engine.template.pseudo_parameters import CFN_PSEUDO_PARAMETERS
from hearth.engine.template.version import VERSION_KEY, TemplateVersion, describe

__all__ = ["VERSION_KEY", "TemplateVersion", "all_versions", "describe", "find_version",
           "get_version", "section_of", "valid_names"]
#: the top-level keys naming a CloudFormation-format version (Heat's, then AWS's)
CFN_VERSION_KEYS = ("HeatTemplateFormatVersion", "AWSTemplateFormatVersion")

#: how CloudFormation-format documents write the sections and keys HOT names
CFN_SPELLING = {
    # sections
    "description": "Description", "parameters": "Parameters", "mappings": "Mappings",
    "resources": "Resources", "outputs": "Outputs", "conditions": "Conditions",
    # resource and output definitions
    "type": "Type", "properties": "Properties", "metadata": "Metadata",
    "depends_on": "DependsOn", "deletion_policy": "DeletionPolicy",
    "update_policy": "UpdatePolicy", "condition": "Condition", "value": "Value",
    # parameter declarations and types
    "default": "Default", "hidden": "NoEcho", "label": "Label",
    "string": "String", "number": "Number", "comma_delimited_list": "CommaDelimitedList",
    "json": "Json", "boolean": "Boolean",
}


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

# --- CloudFormation format (Heat's HeatTemplate and CfnTemplate) -------------

_CFN_PARAMETER_KEYS = ("Type", "Default", "NoEcho", "AllowedValues", "AllowedPattern",
                       "MaxLength", "MinLength", "MaxValue", "MinValue", "Description",
                       "ConstraintDescription", "Label")

CFN_2012_12_12 = TemplateVersion(
    date="2012-12-12",
    aliases=(),
    functions={
        "Fn::FindInMap": cfn.FindInMap,
        "Fn::GetAZs": cfn.GetAZs,
        "Ref": cfn.Ref,
        "Fn::GetAtt": cfn.GetAtt,
        "Fn::Select": cfn.Select,
        "Fn::Join": cfn.Join,
        "Fn::Split": cfn.Split,
        "Fn::Replace": cfn.Replace,
        "Fn::Base64": cfn.Base64,
        "Fn::MemberListToMap": cfn.MemberListToMap,
        "Fn::ResourceFacade": cfn.ResourceFacade,
    },
    condition_functions={},
    sections=frozenset({"HeatTemplateFormatVersion", "AWSTemplateFormatVersion",
                        "Description", "Mappings", "Parameters", "Resources", "Outputs"}),
    resource_keys=frozenset({"Type", "Properties", "Metadata", "DependsOn", "DeletionPolicy",
                             "UpdatePolicy", "Description"}),
    output_keys=frozenset({"Value", "Description"}),
    parameter_keys=frozenset(_CFN_PARAMETER_KEYS),
    constraint_names=frozenset(),
    deletion_policies=frozenset({"Delete", "Retain", "Snapshot"}),
    parameter_types=frozenset(parameters_cfn.CFN_TYPES),
    key="HeatTemplateFormatVersion",
    type="cfn",
    spelling=CFN_SPELLING,
    open_definitions=True,
    parameter_reader=parameters_cfn.schema_from_definition,
    pseudo_parameters=CFN_PSEUDO_PARAMETERS,
)

CFN_2010_09_09 = dataclasses.replace(CFN_2012_12_12, key="AWSTemplateFormatVersion").derive(
    "2010-09-09",
    functions={"Fn::If": conditions.If},
    condition_functions={"Fn::Equals": conditions.Equals,
                         "Ref": cfn.ParamRef,
                         "Fn::FindInMap": cfn.FindInMap,
                         "Fn::Not": cfn.Not,
                         "Fn::And": conditions.And,
                         "Fn::Or": conditions.Or},
    sections={"Conditions"},
    resource_keys={"Condition"},
    output_keys={"Condition"},
)

_VERSIONS = (CFN_2010_09_09, CFN_2012_12_12,
             HOT_2013_05_23, HOT_2014_10_16, HOT_2015_04_30, HOT_2015_10_15, HOT_2016_04_08,
             HOT_2016_10_14, HOT_2017_02_24, HOT_2017_09_01, HOT_2018_03_02, HOT_2018_08_31,
             HOT_2021_04_16)
#: the keys a template names its version under, in the order Heat checks them
VERSION_KEYS = (VERSION_KEY, *CFN_VERSION_KEYS)

#: (version key, value) -> version, for every date and alias
_BY_KEY = {(version.key, value): version for version in _VERSIONS
           for value in (version.date, *version.aliases)}
#: every accepted value of ``heat_template_version`` (dates and aliases)
_BY_VALUE = {value: version for (key, value), version in _BY_KEY.items() if key == VERSION_KEY}


def all_versions() -> list[TemplateVersion]:
    """Return every version as Heat lists them: CloudFormation first, then HOT oldest first."""
    return list(_VERSIONS)


def valid_names() -> list[str]:
    """Return every accepted ``<version key>.<value>`` name, sorted."""
    return sorted(f"{key}.{value}" for key, value in _BY_KEY)


def _values_of(key: str) -> list[str]:
    return sorted(value for version_key, value in _BY_KEY if version_key == key)


def find_version(value: Any, key: str = VERSION_KEY) -> TemplateVersion:
    """Return the version named by ``value`` under version key ``key``.

    ``value`` is a date or alias (``2016-10-14``, ``newton``) or a full name
    (``heat_template_version.2016-10-14``, ``AWSTemplateFormatVersion.2010-09-09``);
    anything else raises InvalidTemplateVersion listing the valid values.
    """
    text = value.isoformat() if isinstance(value, datetime.date) else str(value)
    for version_key in VERSION_KEYS:
        if text.startswith(f"{version_key}."):
            key, text = version_key, text.removeprefix(f"{version_key}.")
    version = _BY_KEY.get((key, text))
    if version is None:
        values = _values_of(key)
        should = "should be one of" if len(values) > 1 else "should be"
        raise exception.InvalidTemplateVersion(
            explanation=f'"{key}: {value}". "{key}" {should}: {", ".join(values)}'
                        + exception.did_you_mean(text, values))
    return version


def get_version(template: Mapping[str, Any]) -> TemplateVersion:
    """Return the version a template declares; raise InvalidTemplateVersion if none fits."""
    if not isinstance(template, Mapping):
        raise exception.InvalidTemplateVersion(
            explanation=f"a template must be a map, not {type(template).__name__}")
    present = [key for key in template if key in VERSION_KEYS]
    if len(present) > 1:
        raise exception.InvalidTemplateVersion(
            explanation=f"Ambiguous versions ({', '.join(present)})",
            line=line_of(template, present[1]))
    if not present:
        raise exception.InvalidTemplateVersion(
            explanation=f'Template format version not found. Add "{VERSION_KEY}", one of: '
                        f'{", ".join(sorted(_BY_VALUE))} (or a CloudFormation-format '
                        f'"{CFN_VERSION_KEYS[1]}: 2010-09-09")')
    try:
        return find_version(template[present[0]], present[0])
    except exception.InvalidTemplateVersion as exc:
        raise exc.located(None, line=line_of(template, present[0])) from None


def section_of(template: Any, name: str, default: Any = None) -> Any:
    """Return section ``name`` (a HOT name) of raw template data, as its version spells it.

    For stored or requested data not (yet) wrapped in a Template: ``default``
    when the data is not a template of a known version or lacks the section.
    """
    try:
        version = get_version(template)
    except exception.InvalidTemplateVersion:
        return default
    value = template.get(version.spell(name))
    return default if value is None else value


def hidden_parameters(template: Any) -> frozenset[str]:
    """Return the names of the parameters raw template data declares hidden.

    Each declaration is read as the template's version reads it (HOT's
    ``hidden``, taken by truthiness as Heat does; CloudFormation's
    ``NoEcho``), so stored or adopted data masks exactly what the stack's
    own :class:`~hearth.engine.template.parameters.Parameters` hide.  A
    declaration the version cannot read counts as hidden (never shown by
    mistake); data that is not a template of a known version hides nothing.
    """
    section = section_of(template, "parameters")
    if not isinstance(section, Mapping):
        return frozenset()
    version = get_version(template)
    hidden = set()
    for name, definition in section.items():
        try:
            shown = isinstance(definition, Mapping) and not version.parameter_reader(
                definition, frozenset(version.constraint_names)).hidden
        except exception.InvalidSchemaError:
            shown = False
        if not shown:
            hidden.add(name)
    return frozenset(hidden)
