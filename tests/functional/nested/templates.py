"""Templates of the nested-stack tests: a child, its parents, and their files maps."""

from __future__ import annotations

import json

CHILD_URL = "file:///templates/child.yaml"

#: A child whose outputs tell its own identity and a member's attribute.
CHILD = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hi}
  length: {type: number, default: 8}
resources:
  word:
    type: OS::Heat::Value
    properties: {value: {get_param: greeting}}
  secret:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
outputs:
  said: {value: {get_attr: [word, value]}}
  me: {value: {list_join: ['|', [{get_param: OS::stack_name}, {get_param: OS::stack_id},
                                 {get_param: OS::project_id}]]}}
"""

#: An OS::Heat::Stack parent giving the child's text and parameters.
STACK_PARENT = f"""
heat_template_version: 2018-08-31
parameters:
  greeting: {{type: string, default: hello}}
resources:
  inner:
    type: OS::Heat::Stack
    properties:
      template: {{get_file: {CHILD_URL}}}
      parameters: {{greeting: {{get_param: greeting}}, length: 6}}
outputs:
  ref: {{value: {{get_resource: inner}}}}
  name: {{value: {{get_attr: [inner, stack_name]}}}}
  all: {{value: {{get_attr: [inner, outputs]}}}}
  said: {{value: {{get_attr: [inner, outputs, said]}}}}
  member_ref: {{value: {{get_attr: [inner, resource.word]}}}}
  member_attr: {{value: {{get_attr: [inner, resource.word, value]}}}}
"""

#: A provider template with an OS::stack_id output and the parent using it twice.
PROVIDER = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string}
  count: {type: number, default: 1}
resources:
  word:
    type: OS::Heat::Value
    properties: {value: {get_param: greeting}}
outputs:
  said: {value: {get_attr: [word, value]}}
  OS::stack_id: {value: {get_attr: [word, value]}}
"""
PROVIDER_URL = "file:///templates/provider.yaml"

PROVIDER_PARENT = f"""
heat_template_version: 2018-08-31
resources:
  by_file:
    type: {PROVIDER_URL}
    properties: {{greeting: from-file}}
  by_type:
    type: My::Word
    properties: {{greeting: from-registry}}
outputs:
  file_said: {{value: {{get_attr: [by_file, said]}}}}
  file_ref: {{value: {{get_resource: by_file}}}}
  type_member: {{value: {{get_attr: [by_type, resource.word, value]}}}}
"""
REGISTRY = {"resource_registry": {"My::Word": PROVIDER_URL}}

FAILING_CHILD = """
heat_template_version: 2018-08-31
resources:
  fine: {type: OS::Heat::None}
  broken:
    type: OS::Heat::TestResource
    depends_on: fine
    properties: {fail: true}
"""

SLOW_CHILD = """
heat_template_version: 2018-08-31
resources:
  slow:
    type: OS::Heat::TestResource
    properties: {action_wait_secs: {create: 30}}
"""


def stack_of(child: str, name: str = "inner", **properties: object) -> str:
    """Return a parent holding one OS::Heat::Stack ``name`` of template ``child``."""
    return json.dumps({"heat_template_version": "2018-08-31", "resources": {
        name: {"type": "OS::Heat::Stack",
               "properties": {"template": child, **properties}}}})


def files(**templates: str) -> dict[str, str]:
    """Return a files map of ``{stem: text}`` under ``file:///templates/``."""
    return {f"file:///templates/{stem}.yaml": text for stem, text in templates.items()}
