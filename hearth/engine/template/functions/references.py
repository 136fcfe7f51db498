"""Functions that read the world: parameters, resources, attributes, files."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import reduce
from typing import Any

from hearth.common import exception
from hearth.engine.template.function import Function, resolve
from hearth.engine.template.functions.arguments import is_list, unpack_list


def _walk_path(value: Any, path: Sequence[Any], on_missing: Any) -> Any:
    """Select ``path`` inside ``value``; any missing step gives ``on_missing``."""

    def step(collection: Any, key: Any) -> Any:
        if not isinstance(collection, (Mapping, Sequence)) or not isinstance(key, (str, int)):
            raise TypeError(key)
        if isinstance(collection, Sequence) and isinstance(key, str):
            key = int(key)
        return collection[key]

    try:
        return reduce(step, path, value)
    except (KeyError, IndexError, TypeError, ValueError):
        return on_missing


def _unknown_reference(function: Function, name: Any, candidates: list[str],
                       ) -> exception.InvalidTemplateReference:
    """Build the error for a reference to an unknown parameter or resource."""
    where = exception.format_path(function.path) or function.fn_name
    return exception.InvalidTemplateReference(
        f'The specified reference "{name}" (in {where}) is incorrect.'
        + exception.did_you_mean(str(name), candidates),
        path=function.path, line=function.line)


class GetParam(Function):
    """Return the value of a parameter, optionally walking a path into it."""

    usage = "parameter_name or [parameter_name, path...]"

    def _split(self, args: Any) -> tuple[Any, list[Any]]:
        if is_list(args):
            if not args:
                raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
            return args[0], list(args[1:])
        return args, []

    def validate(self) -> None:
        """Check the shape and that a literal parameter name exists."""
        super().validate()
        if isinstance(self.args, Function):
            return
        name, _path = self._split(self.args)
        if isinstance(name, Function):
            return
        if not isinstance(name, str):
            raise self.error(f'Function "{self.fn_name}" must be given a parameter name '
                             f'(a string), not {name!r}')
        try:
            self.context.parameter_value(name)
        except exception.InvalidTemplateReference:
            names: list[str] = getattr(self.context, "parameter_names", list)()
            raise _unknown_reference(self, name, list(names)) from None
        except exception.UserParameterMissing:
            return

    def reads_parameter(self) -> bool:
        """Return True: this call reads a parameter."""
        return True

    def parameter_name(self) -> str | None:
        """Return the parameter named, None when it is named at run time."""
        name = self.args[0] if is_list(self.args) and self.args else self.args
        return name if isinstance(name, str) else None

    def reads_unknown(self) -> bool:
        """Return whether the parameter named has no value yet (validating a provider)."""
        name = self.parameter_name()
        known = getattr(self.context, "parameter_known", None)
        return name is not None and known is not None and not known(name)

    def result(self) -> Any:
        """Return the parameter's value, or '' when the path does not exist."""
        name, path = self._split(resolve(self.args))
        if not isinstance(name, str):
            raise self.error(f'Function "{self.fn_name}" must be given a parameter name '
                             f'(a string), not {name!r}')
        return _walk_path(self.context.parameter_value(name), path, "")


class _ResourceFunction(Function):
    """A function whose first argument names a resource of the template."""

    def resource_name(self) -> Any:
        """Return the (unresolved) resource name argument."""
        raise NotImplementedError

    def validate(self) -> None:
        """Check that a literal resource name is a resource of the template."""
        super().validate()
        name = self.resource_name()
        if isinstance(name, Function):
            return
        if not isinstance(name, str) or not self.context.has_resource(name):
            raise _unknown_reference(self, name, self.context.resource_names())

    def dependencies(self) -> Iterator[str]:
        """Yield the resource named (and whatever the arguments need)."""
        yield from super().dependencies()
        name = resolve(self.resource_name())
        if isinstance(name, str):
            yield name


class GetResource(_ResourceFunction):
    """Return the reference id (physical id) of a resource."""

    def resource_name(self) -> Any:
        """Return the argument: the resource name."""
        return self.args

    def result(self) -> Any:
        """Return the resource's reference, None before it exists."""
        name = resolve(self.args)
        if not isinstance(name, str) or not self.context.has_resource(name):
            raise _unknown_reference(self, name, self.context.resource_names())
        return self.context.resource_reference(name)


class GetAttThenSelect(_ResourceFunction):
    """Return an attribute of a resource, selecting a path in it."""

    #: fewest arguments: [resource, attribute]
    minimum_args = 2
    usage = "[resource_name, attribute, (path), ...]"

    def _arguments(self, args: Any) -> list[Any]:
        items = unpack_list(self, args, self.minimum_args, None, self.usage)
        return items

    def resource_name(self) -> Any:
        """Return the first argument (unresolved), or None if malformed."""
        if isinstance(self.args, Function) or not is_list(self.args) or not self.args:
            return None
        return self.args[0]

    def validate(self) -> None:
        """Check the shape, the resource and a literal attribute name."""
        if not isinstance(self.args, Function):
            items = self._arguments(self.args)
            if not isinstance(items[0], (str, Function)):
                raise self.error(f'Arguments to "{self.fn_name}" must be of the form: '
                                 f'{self.usage}')
        super().validate()
        if isinstance(self.args, Function):
            return
        name, attribute = self.args[0], (self.args[1] if len(self.args) > 1 else None)
        if isinstance(name, str) and isinstance(attribute, str):
            try:
                self.context.validate_attribute(name, attribute)
            except exception.InvalidTemplateAttribute as exc:
                raise exc.prefixed(*self.path, line=self.line) from None

    def dependencies(self) -> Iterator[str]:
        """Yield the resource (a malformed call has none)."""
        if self.resource_name() is None:
            yield from ()
            return
        yield from super().dependencies()

    def dep_attrs(self, resource_name: str) -> Iterator[str]:
        """Yield the attribute read from ``resource_name`` (and nested reads)."""
        yield from super().dep_attrs(resource_name)
        if isinstance(self.args, Function) or not is_list(self.args) or not self.args:
            return
        if resolve(self.args[0]) == resource_name and len(self.args) > 1:
            attribute = resolve(self.args[1])
            if isinstance(attribute, str):
                yield attribute

    def result(self) -> Any:
        """Return the attribute value; a missing path item gives None."""
        name, attribute, *path = self._checked(resolve(self.args))
        value = self.context.resource_attribute(name, attribute, [])
        return _walk_path(value, path, None)

    def _checked(self, args: Any) -> list[Any]:
        items = self._arguments(args)
        if not isinstance(items[0], str) or not self.context.has_resource(items[0]):
            raise _unknown_reference(self, items[0], self.context.resource_names())
        return items


class GetAtt(GetAttThenSelect):
    """Return an attribute of a resource; the resource interprets the path."""

    def result(self) -> Any:
        """Return the attribute with the path passed to the resource."""
        name, attribute, *path = self._checked(resolve(self.args))
        return self.context.resource_attribute(name, attribute, path)


class GetAttAllAttributes(GetAtt):
    """Return an attribute of a resource, or all of them when none is named."""

    minimum_args = 1
    usage = "[resource_name] or [resource_name, attribute, (path), ...]"

    def result(self) -> Any:
        """Return one attribute, or the map of all attributes."""
        items = self._checked(resolve(self.args))
        if len(items) == 1:
            return self.context.resource_all_attributes(items[0])
        return super().result()


class GetFile(Function):
    """Return the content of a file uploaded with the template (files map)."""

    def result(self) -> Any:
        """Return the file content; the engine never opens a path itself."""
        key = resolve(self.args)
        if not isinstance(key, str):
            raise self.error(f'Argument to "{self.fn_name}" must be a string')
        try:
            return self.context.files[key]
        except KeyError:
            raise self.error(f'No content found in the "files" section for '
                             f'{self.fn_name} path: {key}') from None


class ResourceFacade(Function):
    """Return metadata, deletion_policy or update_policy of the parent resource."""

    keys = ("metadata", "deletion_policy", "update_policy")

    def validate(self) -> None:
        """Check that the argument is one of the facade keys."""
        super().validate()
        if not isinstance(self.args, Function) and self.args not in self.keys:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be one of: '
                             f'{", ".join(self.keys)}')

    def result(self) -> Any:
        """Return the parent resource's value of the key."""
        key = resolve(self.args)
        if key not in self.keys:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be one of: '
                             f'{", ".join(self.keys)}')
        return self.context.facade(key)
