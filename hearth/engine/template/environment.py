"""Environments: parameters, defaults and the resource registry of a stack.

Several environment files (``-e``) are merged in order into one
:class:`Environment`.  Its :class:`ResourceRegistry` is data plus lookup: it
maps a type name (and optionally a resource name) to a final type name or a
:class:`ProviderTemplate` reference, and answers hooks and restricted
actions per resource.  It knows nothing about plug-in classes: the plug-in
manager maps the final names to classes.
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common import document_bounds, exception
from hearth.common.located import line_of, plain
from hearth.common.template_names import is_template
from hearth.engine.template import parser
from hearth.engine.template.environment_structure import check_environment
from hearth.engine.template.versions import get_version

SECTIONS = (PARAMETERS, PARAMETER_DEFAULTS, RESOURCE_REGISTRY, ENCRYPTED_PARAM_NAMES,
            EVENT_SINKS, PARAMETER_MERGE_STRATEGIES) = (
    "parameters", "parameter_defaults", "resource_registry", "encrypted_param_names",
    "event_sinks", "parameter_merge_strategies")
HOOK_TYPES = ("pre-create", "pre-update", "pre-delete", "post-create", "post-update",
              "post-delete")
RESTRICTED_ACTIONS = ("update", "replace")
MERGE_STRATEGIES = (OVERWRITE, MERGE, DEEP_MERGE) = ("overwrite", "merge", "deep_merge")
_MAX_ALIAS_DEPTH = 20


@dataclasses.dataclass(frozen=True, slots=True)
class ProviderTemplate:
    """A resource type implemented by a template (a files-map key or URL)."""

    url: str


def _invalid(message: str, filename: str | None, path: list[Any],
             line: int | None = None) -> exception.InvalidEnvironment:
    return exception.InvalidEnvironment(message, path=path, line=line, filename=filename)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


class ResourceRegistry:
    """Type mappings and per-resource overrides of an environment."""

    def __init__(self) -> None:
        self.types: dict[str, str] = {}
        self.resources: dict[str, dict[str, Any]] = {}

    def load(self, registry: Mapping[str, Any], filename: str | None = None) -> None:
        """Merge a ``resource_registry`` section (a null value removes a mapping)."""
        if not isinstance(registry, Mapping):
            raise _invalid("resource_registry must be a map", filename, [RESOURCE_REGISTRY],
                           line_of(registry))
        for key, value in registry.items():
            if key == "resources":
                self._load_resources(value or {}, filename, line_of(registry, key))
            elif key == "base_url":
                continue  # only the client resolves relative paths
            elif value is None:
                self._remove(key)
            elif isinstance(value, str):
                self.types[key] = value
            else:
                raise _invalid(f'the mapping of "{key}" must be a type name or a template, '
                               f"not {type(value).__name__}", filename,
                               [RESOURCE_REGISTRY, key], line_of(registry, key))

    def _remove(self, key: str) -> None:
        if key.endswith("*"):
            prefix = key[:-1]
            for name in [name for name in self.types if name.startswith(prefix)]:
                del self.types[name]
        else:
            self.types.pop(key, None)

    def _load_resources(self, resources: Any, filename: str | None, line: int | None) -> None:
        if not isinstance(resources, Mapping):
            raise _invalid("resources must be a map of resource names", filename,
                           [RESOURCE_REGISTRY, "resources"], line)
        for name, overrides in resources.items():
            path = [RESOURCE_REGISTRY, "resources", name]
            if overrides is None:
                self.resources.pop(name, None)
                continue
            if not isinstance(overrides, Mapping):
                raise _invalid("resource overrides must be a map", filename, path,
                               line_of(resources, name))
            _check_overrides(overrides, filename, path)
            merged = self.resources.setdefault(name, {})
            merged.update(plain(overrides))

    def _matching_overrides(self, resource_name: str | None) -> list[dict[str, Any]]:
        """Return the overrides that apply to ``resource_name``, most specific first."""
        if resource_name is None or not self.resources:  # the common case, on the hot path
            return []
        exact = [self.resources[resource_name]] if resource_name in self.resources else []
        globs = sorted((pattern for pattern in self.resources
                        if pattern != resource_name and fnmatch.fnmatchcase(resource_name,
                                                                            pattern)),
                       key=lambda pattern: (-len(pattern), pattern))
        return exact + [self.resources[pattern] for pattern in globs]

    def _global(self, type_name: str) -> str | None:
        if type_name in self.types:
            return self.types[type_name]
        prefixes = sorted((key for key in self.types
                           if key.endswith("*") and type_name.startswith(key[:-1])),
                          key=len, reverse=True)
        for key in prefixes:
            value = self.types[key]
            return value[:-1] + type_name[len(key) - 1:] if value.endswith("*") else value
        return None

    def resolve_type(self, type_name: str, resource_name: str | None = None
                     ) -> str | ProviderTemplate:
        """Return the final type name, or the provider template, for a resource type."""
        for overrides in self._matching_overrides(resource_name):
            value = overrides.get(type_name)
            if isinstance(value, str):
                return ProviderTemplate(value) if is_template(value) else \
                    self.resolve_type(value)
        current, seen = type_name, [type_name]
        for _ in range(_MAX_ALIAS_DEPTH):
            if is_template(current):
                return ProviderTemplate(current)
            mapped = self._global(current)
            if mapped is None or mapped == current:
                return current
            if mapped in seen:
                raise exception.InvalidEnvironment(
                    "resource_registry aliases form a loop: " + " -> ".join([*seen, mapped]),
                    path=[RESOURCE_REGISTRY, type_name])
            seen.append(mapped)
            current = mapped
        return current

    def _override_values(self, resource_name: str, key: str) -> list[str]:
        values: list[str] = []
        for overrides in self._matching_overrides(resource_name):
            for value in _as_list(overrides.get(key) or []):
                if value not in values:
                    values.append(value)
        return values

    def hooks_for(self, resource_name: str) -> list[str]:
        """Return the breakpoint hooks set on ``resource_name``."""
        return self._override_values(resource_name, "hooks")

    def restricted_actions(self, resource_name: str) -> list[str]:
        """Return the actions (update, replace) restricted for ``resource_name``."""
        return self._override_values(resource_name, "restricted_actions")

    def to_dict(self) -> dict[str, Any]:
        """Return the registry as Heat's environment JSON shows it."""
        return {**self.types, "resources": copy.deepcopy(self.resources)}


def _check_overrides(overrides: Mapping[str, Any], filename: str | None,
                     path: list[Any]) -> None:
    """Check a resource's hooks and restricted actions, and its nested resources' ones."""
    _check_values(overrides, "hooks", HOOK_TYPES, "hook type", filename, path)
    _check_values(overrides, "restricted_actions", RESTRICTED_ACTIONS, "restricted action",
                  filename, path)
    for key, value in overrides.items():
        if isinstance(value, Mapping):  # the overrides of a nested stack's resource
            _check_overrides(value, filename, [*path, key])


def _check_values(overrides: Mapping[str, Any], key: str, allowed: Iterable[str], what: str,
                  filename: str | None, path: list[Any]) -> None:
    allowed = tuple(allowed)
    for value in _as_list(overrides.get(key) or []):
        if value not in allowed:
            raise _invalid(f'"{value}" is not a valid {what}; use one of {", ".join(allowed)}.'
                           + exception.did_you_mean(value, allowed), filename, [*path, key],
                           line_of(overrides, key))


# --- parameter merging ------------------------------------------------------
# As Heat's environment merging: with ``merge`` or ``deep_merge`` the value a
# later file gives a parameter is combined with the earlier one according to
# the type the template declares for it.  Without the template (or for a name
# it does not declare) the type is read off the values themselves.

def environment_documents(environment: Any = None,
                          environment_files: Iterable[Any] | None = None,
                          files: Mapping[str, str] | None = None
                          ) -> list[tuple[str | None, Any]]:
    """Return the ``(name, document)`` pairs an environment merges, in order.

    First each of ``environment_files``: a name is looked up in ``files``
    (InvalidEnvironment naming it when it is not there), a ``(name,
    document)`` pair is taken as it is, anything else is an unnamed
    document; then ``environment``.
    """
    files = files or {}
    documents: list[tuple[str | None, Any]] = []
    for item in environment_files or ():
        if isinstance(item, tuple):
            documents.append(item)
        elif isinstance(item, str):
            if item not in files:
                raise exception.InvalidEnvironment(
                    f"The environment file {item} is not among the files sent with the "
                    "request", path=["environment_files"])
            documents.append((item, files[item]))
        else:
            documents.append((None, item))
    if environment is not None:
        documents.append((None, environment))
    return documents


def declared_parameters(template: Any) -> set[str]:
    """Return the names of the parameters a parsed template declares (HOT or CFN section)."""
    if not isinstance(template, Mapping):
        return set()
    section = template.get(PARAMETERS, template.get("Parameters"))
    return set(section) if isinstance(section, Mapping) else set()


def parameter_types(template: Any) -> dict[str, str]:
    """Return ``{parameter name: declared type}`` of a parsed template (empty if none).

    Types are HOT's names (``comma_delimited_list``), whatever the template's
    format spells them (``CommaDelimitedList``).
    """
    try:
        version = get_version(template)
    except exception.InvalidTemplateVersion:
        return {}
    section = template.get(version.spell(PARAMETERS))
    if not isinstance(section, Mapping):
        return {}
    type_key = version.spell("type")
    return {name: version.parameter_type_name(str(spec[type_key]))
            for name, spec in section.items()
            if isinstance(spec, Mapping) and isinstance(spec.get(type_key), str)}


def _refuse_boolean(old: Any, new: Any, strategy: str, name: str) -> Any:
    raise exception.InvalidEnvironment(
        f"Invalid merge strategy '{strategy}' for parameter '{name}': boolean "
        "parameters cannot be merged.", path=[PARAMETERS, name])


def _merge_json(old: Any, new: Any, strategy: str, name: str) -> Any:
    old, new = _json_value(old, name), _json_value(new, name)
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return new
    return _merge_maps(old, new, deep=strategy == DEEP_MERGE)


def _merge_list(old: Any, new: Any, strategy: str, name: str) -> Any:
    if isinstance(old, list) or isinstance(new, list):
        return _as_list_value(old) + _as_list_value(new)
    return f"{old},{new}" if old != "" else new


def _merge_string(old: Any, new: Any, strategy: str, name: str) -> Any:
    return f"{old}{new}"


def _merge_number(old: Any, new: Any, strategy: str, name: str) -> Any:
    try:
        return _number(old) + _number(new)
    except ValueError:
        raise exception.InvalidEnvironment(
            f"Parameter '{name}' cannot be merged: {old!r} and {new!r} are not both "
            "numbers.", path=[PARAMETERS, name]) from None


#: declared parameter type -> how two values of it merge
_MERGERS = {"boolean": _refuse_boolean, "json": _merge_json,
            "comma_delimited_list": _merge_list, "string": _merge_string,
            "number": _merge_number}


def _type_of(value: Any) -> str:
    """Return the parameter type a value looks like (for undeclared parameters)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Mapping):
        return "json"
    if isinstance(value, list):
        return "comma_delimited_list"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def _merge_value(old: Any, new: Any, strategy: str, name: str,
                 declared: str | None = None) -> Any:
    """Combine an earlier and a later value of one parameter (merge strategies)."""
    if strategy == OVERWRITE or old is None:
        return new
    kind = declared if declared in _MERGERS else None
    if kind is None:
        kinds = {_type_of(old), _type_of(new)}
        kind = next((k for k in ("boolean", "json", "comma_delimited_list") if k in kinds),
                    "number" if kinds == {"number"} else "string")
    return _MERGERS[kind](old, new, strategy, name)


def _json_value(value: Any, name: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return document_bounds.load_json(value) if value else {}
    except ValueError as error:
        raise exception.InvalidEnvironment(
            f"Invalid parameter in environment: '{name}' is not JSON ({error}).",
            path=[PARAMETERS, name]) from None


def _number(value: Any) -> int | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    return float(text) if any(ch in text for ch in ".eE") else int(text)


def _as_list_value(value: Any) -> list[Any]:
    if isinstance(value, list):
        return list(value)
    return str(value).split(",") if value not in ("", None) else []


def _merge_maps(old: Mapping[str, Any], new: Mapping[str, Any], deep: bool) -> dict[str, Any]:
    """Merge maps as Heat does: keys of ``new`` win; ``deep`` combines nested values.

    A null in ``new`` leaves the old value.  Deep merging recurses into maps,
    appends lists and concatenates strings.
    """
    result = dict(old)
    for key, value in new.items():
        if value is None:
            continue
        current = result.get(key)
        if not deep or current is None:
            result[key] = value
        elif isinstance(value, Mapping) and isinstance(current, Mapping):
            result[key] = _merge_maps(current, value, deep)
        elif isinstance(value, list):
            result[key] = _as_list_value(current) + value
        elif isinstance(value, str) and isinstance(current, str):
            result[key] = current + value
        else:
            result[key] = value
    return result


class Environment:
    """The merged environment of a stack."""

    def __init__(self, param_types: Mapping[str, str] | None = None) -> None:
        self.params: dict[str, Any] = {}
        self.param_defaults: dict[str, Any] = {}
        #: the template's declared parameter types, which decide how values merge
        self.param_types: dict[str, str] = dict(param_types or {})
        self.registry = ResourceRegistry()
        self.encrypted_param_names: list[str] = []
        self.event_sinks: list[Any] = []
        self._strategies_used: dict[str, str] = {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, filename: str | None = None
                  ) -> Environment:
        """Return the environment of one parsed environment document."""
        env = cls()
        env.merge(data or {}, filename)
        return env

    @classmethod
    def from_documents(cls, documents: Iterable[tuple[str | None, Any]],
                       param_types: Mapping[str, str] | None = None) -> Environment:
        """Merge ``(filename, text or mapping)`` pairs in order into one environment.

        ``param_types`` (:func:`parameter_types` of the template) decides how
        the ``merge`` and ``deep_merge`` strategies combine values.
        """
        env = cls(param_types)
        for filename, document in documents:
            data = document if isinstance(document, Mapping) else parser.parse(
                document, filename, kind="environment")
            env.merge(data, filename)
        return env

    def merge(self, data: Mapping[str, Any], filename: str | None = None) -> None:
        """Merge one environment document over this environment."""
        if not isinstance(data, Mapping):
            raise _invalid("The environment is not a valid YAML mapping data type.",
                           filename, [])
        for section, value in data.items():
            if section not in SECTIONS:
                raise _invalid(f'environment has wrong section "{section}"'
                               + exception.did_you_mean(section, SECTIONS), filename,
                               [section], line_of(data, section))
            if value is None:
                raise _invalid(f'environment has empty section "{section}"', filename,
                               [section], line_of(data, section))
        check_environment(data, filename)
        strategies = dict(data.get(PARAMETER_MERGE_STRATEGIES) or {})
        self._check_strategies(strategies, filename, data)
        self._merge_params(self.params, data.get(PARAMETERS) or {}, strategies, filename)
        self._merge_params(self.param_defaults, data.get(PARAMETER_DEFAULTS) or {},
                           strategies, filename)
        if RESOURCE_REGISTRY in data:
            self.registry.load(data[RESOURCE_REGISTRY], filename)
        for name in data.get(ENCRYPTED_PARAM_NAMES) or []:
            if name not in self.encrypted_param_names:
                self.encrypted_param_names.append(name)
        self.event_sinks.extend(plain(data.get(EVENT_SINKS) or []))

    @staticmethod
    def _check_strategies(strategies: Mapping[str, Any], filename: str | None,
                          data: Mapping[str, Any]) -> None:
        for name, strategy in strategies.items():
            if strategy not in MERGE_STRATEGIES:
                raise _invalid(f'"{strategy}" is not a valid merge strategy; use one of '
                               f'{", ".join(MERGE_STRATEGIES)}.', filename,
                               [PARAMETER_MERGE_STRATEGIES, name],
                               line_of(data.get(PARAMETER_MERGE_STRATEGIES), name))

    def _merge_params(self, target: dict[str, Any], new: Mapping[str, Any],
                      strategies: Mapping[str, str], filename: str | None) -> None:
        default = strategies.get("default", OVERWRITE)
        for name, value in new.items():
            # As Heat: the first file giving a parameter fixes its strategy (even the
            # implicit overwrite); a later file asking for another one conflicts.
            strategy = strategies.get(name, default)
            used = self._strategies_used.setdefault(name, strategy)
            if used != strategy:
                raise _invalid(f"Conflicting merge strategy '{strategy}' for parameter "
                               f"'{name}' in file '{filename}'. (An earlier file used "
                               f"'{used}'.)", filename, [PARAMETERS, name], line_of(new, name))
            try:
                target[name] = _merge_value(target.get(name), plain(value), strategy, name,
                                            self.param_types.get(name))
            except exception.InvalidEnvironment as exc:
                raise exc.located(filename, line_of(new, name)) from None

    def user_dict(self) -> dict[str, Any]:
        """Return the environment as Heat's validate API shows it (user keys only)."""
        return {
            RESOURCE_REGISTRY: self.registry.to_dict(),
            PARAMETERS: copy.deepcopy(self.params),
            PARAMETER_DEFAULTS: copy.deepcopy(self.param_defaults),
            EVENT_SINKS: copy.deepcopy(self.event_sinks),
        }

    def to_dict(self) -> dict[str, Any]:
        """Return Heat's environment JSON, as stored with a stack."""
        return {
            PARAMETERS: copy.deepcopy(self.params),
            PARAMETER_DEFAULTS: copy.deepcopy(self.param_defaults),
            RESOURCE_REGISTRY: self.registry.to_dict(),
            ENCRYPTED_PARAM_NAMES: list(self.encrypted_param_names),
            EVENT_SINKS: copy.deepcopy(self.event_sinks),
        }
