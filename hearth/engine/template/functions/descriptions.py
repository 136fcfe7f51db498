"""The one-line descriptions ``template-function-list`` shows, per function class.

Heat's ``GET /template_versions/{version}/functions`` answers with a fixed
sentence for each function; clients compare them, so Hearth lists the same
sentences (recorded from Heat 27.0.1).  The classes' own docstrings say what
Hearth's implementation does and are free to differ.
"""

from __future__ import annotations

from hearth.engine.template.functions import cfn, collections, conditions, references, strings
from hearth.engine.template.functions import yaql as yaql_functions

_JOIN = "A function for joining strings."
_REPLACE = "A function for performing string substitutions."
_ATTRIBUTES = "A function for resolving resource attributes."
_FACADE = "A function for retrieving data in a parent provider template."
_REPEAT_MAPS = "A function for iterating over a list of items or a dict of keys."
_IF = "A function to return corresponding value based on condition evaluation."

#: function class -> the description Heat's function listing gives it
LISTING_DESCRIPTIONS: dict[type, str] = {
    references.GetParam: "A function for resolving parameter references.",
    references.GetResource: "A function for resolving resource references.",
    references.GetAttThenSelect: _ATTRIBUTES,
    references.GetAtt: _ATTRIBUTES,
    references.GetAttAllAttributes: _ATTRIBUTES,
    references.GetFile: "A function for including a file inline.",
    references.ResourceFacade: _FACADE,
    strings.Join: _JOIN,
    strings.JoinMultiple: "A function for joining one or more lists of strings.",
    strings.Replace: _REPLACE,
    strings.ReplaceJson: _REPLACE,
    strings.ReplaceJsonStrict: _REPLACE,
    strings.ReplaceJsonVeryStrict: _REPLACE,
    strings.StrSplit: "A function for splitting delimited strings into a list.",
    strings.Digest: "A function for performing digest operations.",
    # Heat's make_url really is described like map_replace.
    strings.MakeURL: "A function for performing substitutions on maps.",
    collections.Repeat: "A function for iterating over a list of items.",
    collections.RepeatWithMap: _REPEAT_MAPS,
    collections.RepeatWithNestedLoop: _REPEAT_MAPS,
    collections.MapMerge: "A function for merging maps.",
    collections.MapReplace: "A function for performing substitutions on maps.",
    collections.Filter: "A function for filtering out values from lists.",
    collections.ListConcat: "A function for extending lists.",
    collections.ListConcatUnique: "A function for extending lists with unique items.",
    collections.Contains: "A function for checking whether specific value is in sequence.",
    yaql_functions.Yaql: "A function for executing a yaql expression.",
    conditions.If: _IF,
    conditions.IfNullable: _IF,
    conditions.Equals: "A function for comparing whether two values are equal.",
    conditions.Not: "A function that acts as a NOT operator on a condition.",
    conditions.And: "A function that acts as an AND operator on conditions.",
    conditions.Or: "A function that acts as an OR operator on conditions.",
    cfn.Ref: "A function for resolving parameters or resource references.",
    cfn.GetAZs: "A function for retrieving the availability zones.",
    cfn.Join: _JOIN,
    cfn.Split: "A function for splitting strings.",
    cfn.Replace: _REPLACE,
    cfn.Base64: "A placeholder function for converting to base64.",
    cfn.MemberListToMap: "A function to convert lists with enumerated keys and values to "
                         "mapping.",
    cfn.ResourceFacade: _FACADE,
    cfn.Select: "A function for selecting an item from a list or map.",
    cfn.GetAtt: _ATTRIBUTES,
    cfn.FindInMap: "A function for resolving keys in the template mappings.",
    cfn.ParamRef: "A function for resolving parameter references.",
    cfn.Not: "A function that acts as a NOT operator on a condition.",
}
