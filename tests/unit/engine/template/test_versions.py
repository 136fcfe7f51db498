"""Tests of the HOT version tables (facts: reference/heat.md section 1)."""

import datetime

import pytest

from hearth.common import exception
from hearth.engine.template import versions
from hearth.engine.template.functions import collections, conditions, references, strings
from hearth.engine.template.functions.removed import Removed

DATES = ["2013-05-23", "2014-10-16", "2015-04-30", "2015-10-15", "2016-04-08", "2016-10-14",
         "2017-02-24", "2017-09-01", "2018-03-02", "2018-08-31", "2021-04-16"]

#: the availability matrix of heat.md 1.2: function -> first version having it
FIRST_VERSION = {
    "get_param": "2013-05-23", "get_resource": "2013-05-23", "get_attr": "2013-05-23",
    "get_file": "2013-05-23", "list_join": "2013-05-23", "str_replace": "2013-05-23",
    "resource_facade": "2013-05-23", "repeat": "2015-04-30", "digest": "2015-04-30",
    "str_split": "2015-10-15", "map_merge": "2016-04-08", "yaql": "2016-10-14",
    "map_replace": "2016-10-14", "if": "2016-10-14", "filter": "2017-02-24",
    "str_replace_strict": "2017-02-24", "make_url": "2017-09-01", "list_concat": "2017-09-01",
    "list_concat_unique": "2017-09-01", "contains": "2017-09-01",
    "str_replace_vstrict": "2017-09-01",
}
CFN_NAMES = ["Ref", "Fn::GetAZs", "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64",
             "Fn::MemberListToMap", "Fn::ResourceFacade"]

#: per-version variants (a)-(l): function -> [(first date, class)]
VARIANTS = {
    "get_attr": [("2013-05-23", references.GetAttThenSelect), ("2014-10-16", references.GetAtt),
                 ("2015-10-15", references.GetAttAllAttributes)],
    "list_join": [("2013-05-23", strings.Join), ("2015-10-15", strings.JoinMultiple)],
    "str_replace": [("2013-05-23", strings.Replace), ("2015-10-15", strings.ReplaceJson)],
    "repeat": [("2015-04-30", collections.Repeat), ("2016-10-14", collections.RepeatWithMap),
               ("2017-09-01", collections.RepeatWithNestedLoop)],
    "if": [("2016-10-14", conditions.If), ("2021-04-16", conditions.IfNullable)],
}


@pytest.mark.parametrize("date", DATES)
def test_function_availability_matches_heat(date):
    version = versions.find_version(date)
    for name, first in FIRST_VERSION.items():
        assert version.is_function(name) == (date >= first), name
        if date < first:
            assert name not in version.functions, name


@pytest.mark.parametrize("date", DATES)
def test_cfn_functions_only_in_2013_and_removed_after(date):
    version = versions.find_version(date)
    for name in CFN_NAMES:
        expected = Removed if date > "2013-05-23" else version.functions[name]
        assert version.functions[name] is expected
        assert version.is_function(name) == (date == "2013-05-23")
    assert version.is_function("Fn::Select") == (date < "2015-10-15")


@pytest.mark.parametrize("date", DATES)
def test_variant_classes(date):
    version = versions.find_version(date)
    for name, steps in VARIANTS.items():
        expected = None
        for first, cls in steps:
            if date >= first:
                expected = cls
        assert version.functions.get(name) is expected, name


@pytest.mark.parametrize("date", DATES)
def test_condition_functions(date):
    version = versions.find_version(date)
    names = set(version.condition_functions)
    if date < "2016-10-14":
        assert names == set()
    elif date < "2017-09-01":
        assert names == {"get_param", "equals", "not", "and", "or"}
    else:
        assert names == {"get_param", "equals", "not", "and", "or", "yaql", "contains"}
    assert not version.is_function("equals")


@pytest.mark.parametrize("date", DATES)
def test_structural_keys(date):
    version = versions.find_version(date)
    newton = date >= "2016-10-14"
    assert ("conditions" in version.sections) == newton
    assert {"external_id", "condition"} <= version.resource_keys or not newton
    assert ("condition" in version.resource_keys) == newton
    assert ("external_id" in version.resource_keys) == newton
    assert ("condition" in version.output_keys) == newton
    assert ("delete" in version.deletion_policies) == newton
    assert {"Delete", "Retain", "Snapshot"} <= version.deletion_policies
    assert ("modulo" in version.constraint_names) == (date >= "2017-02-24")
    assert ("tags" in version.parameter_keys) == (date >= "2018-03-02")
    assert version.parameter_types == {"string", "number", "json", "comma_delimited_list",
                                       "boolean"}


@pytest.mark.parametrize("value, date", [
    ("2016-10-14", "2016-10-14"), ("newton", "2016-10-14"), ("ocata", "2017-02-24"),
    ("pike", "2017-09-01"), ("queens", "2018-03-02"), ("rocky", "2018-08-31"),
    ("wallaby", "2021-04-16"), (datetime.date(2013, 5, 23), "2013-05-23"),
    ("heat_template_version.2015-04-30", "2015-04-30"),
])
def test_get_version_accepts_dates_and_aliases(value, date):
    assert versions.get_version({"heat_template_version": value}).date == date
    assert versions.find_version(value).date == date


def test_get_version_unknown_names_valid_versions():
    with pytest.raises(exception.InvalidTemplateVersion) as info:
        versions.get_version({"heat_template_version": "2016-10-15"})
    message = str(info.value)
    # Heat 27.0.1's text, followed by Hearth's hint.
    assert message.startswith('The template version is invalid: "heat_template_version: '
                              '2016-10-15". "heat_template_version" should be one of: '
                              '2013-05-23, 2014-10-16, ')
    assert "2021-04-16, newton, ocata, pike, queens, rocky, wallaby" in message
    assert message.endswith('Did you mean "2016-10-14"?')


def test_get_version_missing_key():
    with pytest.raises(exception.InvalidTemplateVersion,
                       match=r'Template format version not found\. Add "heat_template_version", '
                             'one of: 2013-05-23, '):
        versions.get_version({"description": "x"})


@pytest.mark.parametrize("key, value, version", [
    ("AWSTemplateFormatVersion", "2010-09-09", versions.CFN_2010_09_09),
    ("HeatTemplateFormatVersion", "2012-12-12", versions.CFN_2012_12_12)])
def test_get_version_of_cfn_templates(key, value, version):
    assert versions.get_version({key: value}) is version
    assert versions.find_version(f"{key}.{value}") is version
    assert version.name == f"{key}.{value}" and version.type == "cfn"


@pytest.mark.parametrize("template, message", [
    ({"AWSTemplateFormatVersion": "2010-09-10"},
     'The template version is invalid: "AWSTemplateFormatVersion: 2010-09-10". '
     '"AWSTemplateFormatVersion" should be: 2010-09-09 Did you mean "2010-09-09"?'),
    ({"HeatTemplateFormatVersion": "2012-12-13"},
     'The template version is invalid: "HeatTemplateFormatVersion: 2012-12-13". '
     '"HeatTemplateFormatVersion" should be: 2012-12-12 Did you mean "2012-12-12"?'),
    ({"HeatTemplateFormatVersion": "2012-12-12", "AWSTemplateFormatVersion": "2010-09-09"},
     "The template version is invalid: Ambiguous versions (HeatTemplateFormatVersion, "
     "AWSTemplateFormatVersion)"),
    ({"heat_template_version": "2016-10-14", "AWSTemplateFormatVersion": "2010-09-09"},
     "The template version is invalid: Ambiguous versions (heat_template_version, "
     "AWSTemplateFormatVersion)"),
])
def test_get_version_refuses_a_wrong_or_ambiguous_cfn_version(template, message):
    with pytest.raises(exception.InvalidTemplateVersion) as raised:
        versions.get_version(template)
    assert str(raised.value) == message


def test_cfn_versions_state_their_differences():
    heat, aws = versions.CFN_2012_12_12, versions.CFN_2010_09_09
    assert set(aws.functions) - set(heat.functions) == {"Fn::If"}
    assert heat.condition_functions == {}
    assert set(aws.condition_functions) == {"Fn::Equals", "Ref", "Fn::FindInMap", "Fn::Not",
                                            "Fn::And", "Fn::Or"}
    assert aws.sections - heat.sections == {"Conditions"}
    assert aws.resource_keys - heat.resource_keys == {"Condition"}
    assert aws.output_keys - heat.output_keys == {"Condition"}
    assert heat.spell("resources") == "Resources" and heat.spell("depends_on") == "DependsOn"
    assert versions.HOT_2013_05_23.spell("resources") == "resources"


def test_get_version_not_a_map():
    with pytest.raises(exception.InvalidTemplateVersion,
                       match="a template must be a map, not list"):
        versions.get_version([])


def test_all_versions_listing():
    rows = [version.as_listing() for version in versions.all_versions()]
    assert [row["version"] for row in rows] == [
        "AWSTemplateFormatVersion.2010-09-09", "HeatTemplateFormatVersion.2012-12-12",
        *(f"heat_template_version.{d}" for d in DATES)]
    assert rows[7] == {"version": "heat_template_version.2016-10-14", "type": "hot",
                       "aliases": ["heat_template_version.newton"]}
    assert rows[0] == {"version": "AWSTemplateFormatVersion.2010-09-09", "type": "cfn",
                       "aliases": []}


def test_function_list_descriptions_and_condition_functions():
    version = versions.find_version("2017-09-01")
    plain = {row["functions"]: row["description"] for row in version.function_list()}
    assert "equals" not in plain and "Fn::Select" not in plain
    assert plain["get_param"] == "A function for resolving parameter references."
    assert all(plain.values())
    with_conditions = {row["functions"] for row in version.function_list(True)}
    assert with_conditions == set(plain) | {"equals", "not", "and", "or"}


def test_function_list_2013_lists_cfn_functions():
    names = [row["functions"] for row in versions.find_version("2013-05-23").function_list()]
    assert "Fn::Select" in names and "Ref" in names and "repeat" not in names
