"""Templates of the group tests (ResourceGroup and ResourceChain), shared by every path."""

from __future__ import annotations

#: A group of TestResources: count and removals as parameters, every attribute as an output.
GROUP = """
heat_template_version: 2021-04-16
parameters:
  count: {type: number, default: 3}
  removed: {type: comma_delimited_list, default: "1"}
  mode: {type: string, default: append}
  value: {type: string, default: v}
resources:
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      removal_policies: [{resource_list: {get_param: removed}}]
      removal_policies_mode: {get_param: mode}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {list_join: ["", [{get_param: value}, "%index%"]]}}
outputs:
  refs: {value: {get_attr: [g, refs]}}
  refs_map: {value: {get_attr: [g, refs_map]}}
  attributes: {value: {get_attr: [g, attributes, output]}}
  output: {value: {get_attr: [g, output]}}
  first_ref: {value: {get_attr: [g, resource.0]}}
  first_output: {value: {get_attr: [g, resource.0.output]}}
  first_output_path: {value: {get_attr: [g, resource.0, output]}}
  removed: {value: {get_attr: [g, removed_rsrc_list]}}
  gone: {value: {get_attr: [g, resource.1.output]}}
  reference: {value: {get_resource: g}}
"""

#: A group whose members are created and updated in batches of two.
ROLLING = """
heat_template_version: 2021-04-16
parameters:
  value: {type: string, default: a}
  pause: {type: number, default: 0}
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update: {max_batch_size: 2, min_in_service: 1, pause_time: {get_param: pause}}
      batch_create: {max_batch_size: 2, pause_time: {get_param: pause}}
    properties:
      count: 3
      index_var: "__i__"
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {list_join: ["-", [{get_param: value}, "__i__"]]}}
outputs:
  output: {value: {get_attr: [g, output]}}
"""

#: A chain of two TestResources and a None, each given the same properties.
CHAIN = """
heat_template_version: 2021-04-16
parameters:
  concurrent: {type: boolean, default: false}
resources:
  c:
    type: OS::Heat::ResourceChain
    properties:
      resources: [OS::Heat::TestResource, OS::Heat::TestResource]
      concurrent: {get_param: concurrent}
      resource_properties: {value: shared}
outputs:
  refs: {value: {get_attr: [c, refs]}}
  output: {value: {get_attr: [c, output]}}
  attributes: {value: {get_attr: [c, attributes, output]}}
  second: {value: {get_attr: [c, resource.1]}}
  second_output: {value: {get_attr: [c, resource.1.output]}}
"""


def group_of(member: str, count: int = 2, properties: str = "{}") -> str:
    """Return a template of one group of ``count`` members of type ``member``."""
    return f"""
heat_template_version: 2021-04-16
resources:
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: {count}
      resource_def: {{type: {member}, properties: {properties}}}
"""


def chain_of(*types: str) -> str:
    """Return a template of one chain of ``types``."""
    return f"""
heat_template_version: 2021-04-16
resources:
  c:
    type: OS::Heat::ResourceChain
    properties: {{resources: [{", ".join(types)}]}}
"""


def none_group(count: int) -> str:
    """Return a template of one group of ``count`` OS::Heat::None (the scale test and bench)."""
    return group_of("OS::Heat::None", count)


#: A group whose size, members and update policy use parameters given no value.
UNKNOWN_PARAMETERS = """
heat_template_version: 2021-04-16
parameters:
  count: {type: number}
  value: {type: string}
  pause: {type: number}
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy: {rolling_update: {pause_time: {get_param: pause}}}
    properties:
      count: {get_param: count}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {list_join: ["-", [{get_param: value}, "%index%"]]}}
"""

#: A group whose update policy is out of range.
BAD_POLICY = """
heat_template_version: 2021-04-16
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy: {rolling_update: {max_batch_size: 0}}
    properties: {resource_def: {type: OS::Heat::None}}
"""

#: A member's provider template (its one output tells which provider made it).
PROVIDER = """
heat_template_version: 2021-04-16
parameters:
  made_by: {type: string, default: %s}
resources:
  oops: {type: OS::Heat::TestResource, properties: {value: {get_param: made_by}}}
outputs:
  made_by: {value: {get_attr: [oops, output]}}
"""


def provider_group(path: str) -> str:
    """Return a group of four members of the provider template at ``path``, replaced in batches.

    Heat's test_resource_group_update_replace_template_changed: batches of
    three with one member in service.
    """
    return f"""
heat_template_version: 2021-04-16
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update: {{max_batch_size: 3, min_in_service: 1}}
    properties:
      count: 4
      resource_def: {{type: {path}}}
outputs:
  made_by: {{value: {{get_attr: [g, made_by]}}}}
"""
