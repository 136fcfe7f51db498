"""CloudFormation-style functions, usable in HOT 2013-05-23 only."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from hearth.common import document_bounds, exception
from hearth.engine.template.function import Function, resolve
from hearth.engine.template.functions import references, strings
from hearth.engine.template.functions.arguments import is_list, is_map, unpack_list


class Ref(Function):
    """Return a resource's reference id, or else a parameter's value."""

    def validate(self) -> None:
        """Check that a literal name is a resource or a parameter."""
        super().validate()
        if isinstance(self.args, Function):
            return
        self._name(self.args)
        if self.context.has_resource(self.args):
            return
        try:
            self.context.parameter_value(self.args)
        except exception.InvalidTemplateReference:
            candidates = [*self.context.resource_names(),
                          *getattr(self.context, "parameter_names", list)()]
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
        if isinstance(name, str) and self.context.has_resource(name):
            yield name

    def result(self) -> Any:
        """Return the resource reference or the parameter value."""
        name = self._name(resolve(self.args))
        if self.context.has_resource(name):
            return self.context.resource_reference(name)
        return self.context.parameter_value(name)


class GetAZs(Function):
    """Return the availability zones of the stack (always ["nova"] here)."""

    def result(self) -> list[str]:
        """Return the zones; the region argument is ignored."""
        return ["nova"]


class Join(strings.Join):
    """Join a list of strings with a delimiter (CFN spelling)."""


class Split(Function):
    """Split a string by a delimiter."""

    usage = "[delimiter, string]"

    def result(self) -> list[str]:
        """Return the parts of the string."""
        delimiter, text = unpack_list(self, resolve(self.args), 2, 2, self.usage)
        if not isinstance(delimiter, str) or not isinstance(text, str) or not delimiter:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
        return text.split(delimiter)


class Replace(strings.Replace):
    """Replace placeholders in a string (CFN order: map first, string second)."""

    usage = "[{placeholder: value, ...}, template_string]"

    def _arguments(self, args: Any) -> tuple[Any, Any]:
        params, template = unpack_list(self, args, 2, 2, self.usage)
        return template, params


class Base64(Function):
    """Return the string unchanged (Heat accepts plain user data)."""

    def result(self) -> Any:
        """Return the argument as is."""
        value = resolve(self.args)
        if not isinstance(value, str):
            raise self.error(f'Arguments to "{self.fn_name}" must be a string')
        return value


class MemberListToMap(Function):
    """Turn an AWS query-style member list into a map."""

    usage = "[key_name, value_name, ['.member.0.key=k', '.member.0.value=v', ...]]"

    def result(self) -> dict[str, Any]:
        """Return the map built from the member list."""
        key_name, value_name, members = unpack_list(self, resolve(self.args), 3, 3, self.usage)
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

    def result(self) -> Any:
        """Return the item, or '' when it is missing."""
        index, collection = unpack_list(self, resolve(self.args), 2, 2, self.usage)
        if isinstance(collection, str) and collection:
            try:
                collection = document_bounds.load_json(collection)
            except ValueError:
                raise self.error(f'Arguments to "{self.fn_name}" not fully resolved') from None
        if collection in ("", None):
            return ""
        if is_map(collection):
            if not isinstance(index, str):
                raise self.error(f'Selector to "{self.fn_name}" must be a string for a map')
            return collection.get(index, "")
        if is_list(collection):
            try:
                return collection[int(index)]
            except (ValueError, TypeError):
                raise self.error(f'Selector to "{self.fn_name}" must be an integer') from None
            except IndexError:
                return ""
        raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
