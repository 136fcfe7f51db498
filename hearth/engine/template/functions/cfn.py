"""CloudFormation-style functions: those of CloudFormation-format templates.

HOT 2013-05-23 has some of them too (``Ref``, ``Fn::Join``...); the
version tables say which name maps to which class where.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from typing import Any

from hearth.common import document_bounds, exception
from hearth.engine.template.function import Function, resolve
from hearth.engine.template.functions import conditions, references, strings
from hearth.engine.template.functions.arguments import is_list, is_literal, is_map, unpack_list


class Ref(Function):
    """Return a resource's reference id, or else a parameter's value."""

    def refers_to_resource(self, name: Any) -> bool:
        """Return whether ``name`` is read as a resource (else as a parameter)."""
        return isinstance(name, str) and self.context.has_resource(name)

    def _candidates(self) -> list[str]:
        return [*self.context.resource_names(),
                *getattr(self.context, "parameter_names", list)()]

    def validate(self) -> None:
        """Check that a literal name is a resource or a parameter."""
        super().validate()
        if isinstance(self.args, Function):
            return
        self._name(self.args)
        if self.refers_to_resource(self.args):
            return
        try:
            self.context.parameter_value(self.args)
        except exception.InvalidTemplateReference:
            candidates = self._candidates()
            where = exception.format_path(self.path) or self.fn_name
            raise exception.InvalidTemplateReference(
                f'The specified reference "{self.args}" (in {where}) is incorrect.'
                + exception.did_you_mean(str(self.args), candidates),
                path=self.path, line=self.line) from None
        except exception.UserParameterMissing:
            return

    def _name(self, name: Any) -> str:
        if not isinstance(name, str):
            raise self.error(f'Argument to "{self.fn_name}" must be a name (a string)')
        return name

    def dependencies(self) -> Iterator[str]:
        """Yield the name when it is a resource."""
        name = resolve(self.args)
        if self.refers_to_resource(name):
            yield name

    def reads_unknown(self) -> bool:
        """Return whether the parameter named has no value yet (validating a provider)."""
        known = getattr(self.context, "parameter_known", None)
        return (isinstance(self.args, str) and not self.refers_to_resource(self.args)
                and known is not None and not known(self.args))

    def reads_parameter(self) -> bool:
        """Return whether the name is (or, named at run time, may be) a parameter's."""
        return not self.refers_to_resource(self.args)

    def parameter_name(self) -> str | None:
        """Return the parameter named, None when it is named at run time."""
        return self.args if isinstance(self.args, str) and self.reads_parameter() else None

    def result(self) -> Any:
        """Return the resource reference or the parameter value."""
        name = self._name(resolve(self.args))
        if self.refers_to_resource(name):
            return self.context.resource_reference(name)
        try:
            return self.context.parameter_value(name)
        except exception.InvalidTemplateReference:
            raise exception.InvalidTemplateReference(
                f'The specified reference "{name}" (in '
                f'{exception.format_path(self.path) or self.fn_name}) is incorrect.'
                + exception.did_you_mean(name, self._candidates()),
                path=self.path, line=self.line) from None


class ParamRef(Ref):
    """Return a parameter's value (``Ref`` in conditions: resources do not exist yet)."""

    def refers_to_resource(self, name: Any) -> bool:
        """Return False: conditions read parameters only."""
        return False

    def _candidates(self) -> list[str]:
        return list(getattr(self.context, "parameter_names", list)())


class GetAtt(references.GetAttThenSelect):
    """Return an attribute of a resource: ``[resource_name, attribute]``, no path."""

    usage = "[resource_name, attribute]"

    def _arguments(self, args: Any) -> list[Any]:
        if not is_list(args) or len(args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form '
                             f'{self.usage}')
        return list(args)


class FindInMap(Function):
    """Return a value of the template's ``Mappings``: ``[map_name, key, second_key]``."""

    usage = "[map_name, top_level_key, second_level_key]"

    def _arguments(self, args: Any) -> list[Any]:
        return unpack_list(self, args, 3, 3, self.usage)

    def validate(self) -> None:
        """Check the shape; with literal arguments, that the value exists."""
        super().validate()
        if isinstance(self.args, Function):
            return
        items = self._arguments(self.args)
        if is_literal(items):
            self._find(*items)

    def _find(self, map_name: Any, key: Any, second_key: Any) -> Any:
        where: Any = self.context.mappings()
        walked: list[str] = []
        for name in (map_name, key, second_key):
            if not is_map(where) or not isinstance(name, Hashable) or name not in where:
                within = f'the mapping "{".".join(walked)}"' if walked \
                    else "the Mappings section"
                what = "key" if walked else "mapping"
                raise self.error(f'The {what} "{name}" is not in {within}'
                                 + exception.did_you_mean(str(name), where if is_map(where)
                                                          else ()))
            walked.append(str(name))
            where = where[name]
        return where

    def result(self) -> Any:
        """Return the value at ``Mappings[map_name][key][second_key]``."""
        return self._find(*self._arguments(resolve(self.args)))


class Not(conditions.Not):
    """Return the negation of a condition given as a one-item list."""

    def validate(self) -> None:
        """Check the shape: a list of exactly one condition."""
        Function.validate(self)
        self._condition()

    def _condition(self) -> Any:
        return unpack_list(self, self.args, 1, 1, self.usage)[0]

    def result(self) -> bool:
        """Return ``not condition``."""
        return not conditions.condition_value(self, self._condition())


class GetAZs(Function):
    """Return the availability zones of the stack (always ["nova"] here)."""

    def result(self) -> list[str]:
        """Return the zones; the region argument is ignored."""
        return ["nova"]


class Join(strings.Join):
    """Join a list of strings with a delimiter (CFN spelling)."""

    usage = '"Fn::Join" : [ " ", [ "str1", "str2"]]'


def _pair(function: Function, args: Any, example: str) -> list[Any]:
    """Return the two arguments of ``function``, or Heat's "Incorrect arguments" error."""
    if not is_list(args) or len(args) != 2:
        raise function.error(f'Incorrect arguments to "{function.fn_name}" should be: '
                             f'{example}')
    return list(args)


class Split(Function):
    """Split a string by a delimiter: ``[delimiter, string]``."""

    example = '"Fn::Split" : [ ",", "str1,str2"]]'

    def validate(self) -> None:
        """Check the shape: a delimiter and a string."""
        super().validate()
        if not isinstance(self.args, Function):
            _pair(self, self.args, self.example)

    def result(self) -> list[str]:
        """Return the parts of the string."""
        delimiter, text = _pair(self, resolve(self.args), self.example)
        if not isinstance(delimiter, str) or not delimiter:
            raise self.error(f"Delimiter for {self.fn_name} must be a non-empty string")
        if not isinstance(text, str):
            raise self.error(f"String to split must be string; got {type(text)}")
        return text.split(delimiter)


class Replace(strings.Replace):
    """Replace placeholders in a string (CFN order: map first, string second)."""

    example = '{"Fn::Replace": [ {"$var1": "foo", "%var2%": "bar"}, "$var1 is %var2%"]}'

    def _arguments(self, args: Any) -> tuple[Any, Any]:
        params, template = _pair(self, args, self.example)
        return template, params


class Base64(Function):
    """Return the string unchanged (Heat accepts plain user data)."""

    def result(self) -> Any:
        """Return the argument as is."""
        value = resolve(self.args)
        if not isinstance(value, str):
            raise self.error(f'"{self.fn_name}" argument must be a string')
        return value


class MemberListToMap(Function):
    """Turn an AWS query-style member list into a map."""

    usage = "[key_name, value_name, ['.member.0.key=k', '.member.0.value=v', ...]]"

    def validate(self) -> None:
        """Check the shape and that literal key and value names are strings."""
        super().validate()
        if not isinstance(self.args, Function):
            self._names(unpack_list(self, self.args, 3, 3, self.usage))

    def _names(self, items: list[Any]) -> None:
        for name, what in zip(items[:2], ("Key", "Value"), strict=True):
            if not isinstance(name, (str, Function)):
                raise self.error(f"{self.fn_name} {what} Name must be a string")

    def result(self) -> dict[str, Any]:
        """Return the map built from the member list."""
        key_name, value_name, members = unpack_list(self, resolve(self.args), 3, 3, self.usage)
        self._names([key_name, value_name])
        if not is_list(members):
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
        entries: dict[str, dict[str, str]] = {}
        for member in members:
            match = re.match(r"^\.?member\.(\d+)\.([^=]+)=(.*)$", str(member))
            if not match:
                raise self.error(f'Wrong argument "{member}" to "{self.fn_name}"')
            entries.setdefault(match.group(1), {})[match.group(2)] = match.group(3)
        return {entry[key_name]: entry.get(value_name) for entry in entries.values()
                if key_name in entry}


class ResourceFacade(references.ResourceFacade):
    """Return Metadata, DeletionPolicy or UpdatePolicy of the parent resource."""

    keys = ("Metadata", "DeletionPolicy", "UpdatePolicy")

    def result(self) -> Any:
        """Return the parent's value of the key."""
        key = resolve(self.args)
        if key not in self.keys:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be one of: '
                             f'{", ".join(self.keys)}')
        return self.context.facade(re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower())


class Select(Function):
    """Select an item of a list (by index) or a map (by key)."""

    usage = "[index, collection]"

    def _arguments(self, args: Any) -> list[Any]:
        if not is_list(args) or len(args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form {self.usage}')
        return list(args)

    def validate(self) -> None:
        """Check the shape: an index and a collection."""
        super().validate()
        if not isinstance(self.args, Function):
            self._arguments(self.args)

    def result(self) -> Any:
        """Return the item, or '' when it is missing."""
        index, collection = self._arguments(resolve(self.args))
        if isinstance(collection, str) and collection:
            try:
                collection = document_bounds.load_json(collection)
            except ValueError:
                raise self.error(f'Arguments to "{self.fn_name}" not fully resolved') from None
        if collection in ("", None):
            return ""
        if is_map(collection):
            if not isinstance(index, str):
                raise self.error(f'Index to "{self.fn_name}" must be a string')
            return collection.get(index, "")
        if is_list(collection):
            try:
                return collection[int(index)]
            except (ValueError, TypeError):
                raise self.error(f'Index to "{self.fn_name}" must be an integer') from None
            except IndexError:
                return ""
        raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
