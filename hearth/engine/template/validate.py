"""The validate API: a template (and environments) in, Heat's validate object out.

``EngineService.validate_template`` and ``stackctl template-validate`` both
call :func:`validate_template`.  The result has Heat's shape:
``Description``, ``Parameters`` (Type, Description, Default, Value, NoEcho,
Label, constraint keys), ``ParameterGroups`` (when the template has them)
and ``Environment``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.located import plain
from hearth.engine.template import parser
from hearth.engine.template.environment import (
    Environment,
    environment_documents,
    parameter_types,
)
from hearth.engine.template.template import ResourceValidator, Template

EnvironmentInput = str | bytes | Mapping[str, Any] | tuple[str | None, Any]


def load_template(template: str | bytes | Mapping[str, Any], filename: str | None = None,
                  files: Mapping[str, str] | None = None,
                  env: Environment | None = None) -> Template:
    """Return the Template of text or an already parsed mapping."""
    data = template if isinstance(template, Mapping) else parser.parse(template, filename)
    return Template(data, files=files, env=env, filename=filename)


def validate_template(template: str | bytes | Mapping[str, Any], filename: str | None = None,
                      params: Mapping[str, Any] | None = None,
                      env_files: Iterable[EnvironmentInput] | None = None,
                      files: Mapping[str, str] | None = None,
                      resource_validator: ResourceValidator | None = None) -> dict[str, Any]:
    """Validate a template as Heat's validate API does and return its answer.

    As in Heat, parameter values are shown (``Value``) but not checked:
    conversions, constraints and missing values fail at stack create, not
    here; an unknown parameter name does fail.  Raises the located
    HearthException of the first problem found.
    """
    files = dict(files or {})
    data = template if isinstance(template, Mapping) else parser.parse(template, filename)
    env = Environment.from_documents(environment_documents(None, env_files, files),
                                     parameter_types(data))
    tmpl = load_template(data, filename, files, env)
    user_params = dict(params or {})
    env.params.update(user_params)  # Heat shows -P values in the environment too
    parameters = tmpl.validate(resource_validator=resource_validator, user_params=user_params,
                               validate_value=False)
    result: dict[str, Any] = {
        "Description": tmpl.description,
        "Parameters": plain(parameters.validate_output()),
    }
    if tmpl.parameter_groups:
        result["ParameterGroups"] = plain(tmpl.parameter_groups)
    result["Environment"] = env.user_dict()
    return result
