"""Functions that build lists and maps.

Messages of run-time errors follow Heat 27.0.1 (checked with the oracle).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hearth.engine.template.function import Function, resolve
from hearth.engine.template.functions.arguments import is_list, is_map, unpack_list

# --- repeat ----------------------------------------------------------------

class Repeat(Function):
    """Repeat a template for each value (or combination) of for_each lists."""

    usage = '{"for_each": {"%var%": list, ...}, "template": any}'
    #: what the error says for_each values must be
    allowed_values = "lists"

    def _arguments(self, args: Any) -> dict[str, Any]:
        if not is_map(args):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map: {self.usage}')
        if not {"for_each", "template"} <= set(args):
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
        parts = dict(args)
        if not isinstance(parts["for_each"], Function) and not is_map(parts["for_each"]):
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        return parts

    def validate(self) -> None:
        """Check the shape: a map with for_each (a map) and template."""
        super().validate()
        if not isinstance(self.args, Function):
            self._arguments(self.args)

    def values_of(self, value: Any) -> list[Any]:
        """Return the values one for_each entry iterates over."""
        if value is None:
            return []
        if is_list(value):
            return list(value)
        raise self.error(f'The values of the "for_each" argument to "{self.fn_name}" must be '
                         f'{self.allowed_values}')

    def combinations(self, lists: Sequence[list[Any]], args: Mapping[str, Any]
                     ) -> Iterable[tuple[Any, ...]]:
        """Return the value combinations: the Cartesian product."""
        return itertools.product(*lists)

    def result(self) -> list[Any]:
        """Return the template once per combination, placeholders replaced."""
        args = self._arguments(resolve(self.args))
        for_each = args["for_each"]
        if not is_map(for_each):
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        keys = list(for_each)
        lists = [self.values_of(for_each[key]) for key in keys]
        return [self._replace(args["template"], keys, values)
                for values in self.combinations(lists, args)]

    def _replace(self, template: Any, keys: list[Any], values: Sequence[Any]) -> Any:
        if isinstance(template, str):
            for key, value in zip(keys, values, strict=True):
                if not isinstance(value, str):
                    raise self.error(f"replace() argument 2 must be str, not "
                                     f"{type(value).__name__}")
                template = template.replace(str(key), value)
            return template
        if is_map(template):
            return {self._replace(k, keys, values): self._replace(v, keys, values)
                    for k, v in template.items()}
        if is_list(template):
            return [self._replace(item, keys, values) for item in template]
        return template


class RepeatWithMap(Repeat):
    """Repeat a template for each value of for_each lists or keys of maps."""

    allowed_values = "lists or maps"

    def values_of(self, value: Any) -> list[Any]:
        """Return the values to iterate: a map gives its keys."""
        if is_map(value):
            return list(value)
        return super().values_of(value)


class RepeatWithNestedLoop(RepeatWithMap):
    """Repeat a template over for_each lists, as permutations or pairwise."""

    def combinations(self, lists: Sequence[list[Any]], args: Mapping[str, Any]
                     ) -> Iterable[tuple[Any, ...]]:
        """Return the product, or with ``permutations: false`` the lists zipped."""
        permutations = args.get("permutations", True)
        if not isinstance(permutations, bool):
            raise self.error(f'"permutations" should be boolean type for {self.fn_name} '
                             f'function.')
        if permutations:
            return super().combinations(lists, args)
        if any(is_map(value) for value in args["for_each"].values()):
            raise self.error(f'The values of the "for_each" argument to "{self.fn_name}" '
                             f'must be lists')
        if len({len(values) for values in lists}) > 1:
            raise self.error("For repeat, the length of for_each values should be equal if "
                             "no nested loop.")
        return zip(*lists, strict=True)


# --- maps ------------------------------------------------------------------

class MapMerge(Function):
    """Merge maps; later maps override earlier keys."""

    usage = "[{...}, {...}, ...]"

    def validate(self) -> None:
        """Check that the argument is a list."""
        super().validate()
        if not isinstance(self.args, Function):
            unpack_list(self, self.args, 0, None, self.usage)

    def result(self) -> dict[Any, Any]:
        """Return the shallow merge of the maps (None counts as empty)."""
        merged: dict[Any, Any] = {}
        for item in unpack_list(self, resolve(self.args), 0, None, self.usage):
            if item is None:
                continue
            if not is_map(item):
                raise self.error(f"Incorrect arguments: Items to merge must be maps. {item!r} "
                                 f"is type {type(item)} instead of a dict")
            merged.update(item)
        return merged


class MapReplace(Function):
    """Rename keys and replace values of a map."""

    usage = ('"map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, '
             '"values": {"val1": "val2"}}]')

    def _incorrect(self) -> Exception:
        return self.error(f'Incorrect arguments to "{self.fn_name}" should be: {self.usage}')

    def validate(self) -> None:
        """Check the shape: [map, {keys: map, values: map}]."""
        super().validate()
        if not isinstance(self.args, Function):
            self._arguments(self.args)

    def _arguments(self, args: Any) -> tuple[Any, Any, Any]:
        if not is_list(args) or len(args) != 2:
            raise self._incorrect()
        source, replacements = args
        if isinstance(replacements, Function):
            return source, {}, {}
        if not is_map(replacements) or set(replacements) - {"keys", "values"}:
            raise self._incorrect()
        keys, values = replacements.get("keys") or {}, replacements.get("values") or {}
        for table in (source, keys, values):
            if not isinstance(table, Function) and table is not None and not is_map(table):
                raise self._incorrect()
        return source, keys, values

    def result(self) -> dict[Any, Any]:
        """Return the map with keys renamed and values replaced."""
        source, keys, values = self._arguments(resolve(self.args))
        result: dict[Any, Any] = {}
        for key, value in (source or {}).items():
            new_key = keys.get(key, key)
            if new_key in result or (new_key != key and new_key in source):
                raise self.error(f"key replacement {new_key} collides with a key in the "
                                 f"input map")
            try:
                result[new_key] = values.get(value, value)
            except TypeError:
                result[new_key] = value
        return result


# --- lists -----------------------------------------------------------------

class Filter(Function):
    """Remove the given values from a list."""

    usage = "[values_to_remove, list]"

    def validate(self) -> None:
        """Check the shape: two arguments."""
        super().validate()
        if not isinstance(self.args, Function):
            unpack_list(self, self.args, 2, 2, self.usage)

    def result(self) -> Any:
        """Return the list without the values (an empty list is returned as is)."""
        remove, values = unpack_list(self, resolve(self.args), 2, 2, self.usage)
        if not values or not remove:
            return values
        if not is_list(values):
            raise self.error(f'"{self.fn_name}" must operate on a list')
        if not is_list(remove):
            raise self.error(f'"{self.fn_name}" filters only values of a list')
        return [value for value in values if value not in remove]


class ListConcat(Function):
    """Concatenate lists."""

    usage = "[list, list, ...]"

    def validate(self) -> None:
        """Check that the argument is a list."""
        super().validate()
        if not isinstance(self.args, Function):
            unpack_list(self, self.args, 0, None, self.usage)

    def result(self) -> list[Any]:
        """Return the concatenation (None items count as empty)."""
        args = unpack_list(self, resolve(self.args), 0, None, self.usage)
        result: list[Any] = []
        for item in args:
            if item is None:
                continue
            if not is_list(item):
                raise self.error(f"Incorrect arguments: Items to concat must be lists. {args!r} "
                                 f"contains an item that is not a list: {item!r}")
            result.extend(item)
        return self.finish(result)

    def finish(self, items: list[Any]) -> list[Any]:
        """Return the concatenated items (the unique variant drops repeats)."""
        return items


class ListConcatUnique(ListConcat):
    """Concatenate lists, keeping the first occurrence of each item."""

    def finish(self, items: list[Any]) -> list[Any]:
        """Return the items without repeats, in first-seen order."""
        unique: list[Any] = []
        for item in items:
            if item not in unique:
                unique.append(item)
        return unique


class Contains(Function):
    """Return whether a value is in a sequence."""

    usage = "[value, sequence]"

    def validate(self) -> None:
        """Check the shape: two arguments."""
        super().validate()
        if not isinstance(self.args, Function):
            unpack_list(self, self.args, 2, 2, self.usage)

    def result(self) -> bool:
        """Return ``value in sequence``."""
        value, sequence = unpack_list(self, resolve(self.args), 2, 2, self.usage)
        if not isinstance(sequence, Sequence):
            raise self.error(f'Second argument to "{self.fn_name}" should be a sequence.')
        return value in sequence
