"""The pseudo parameters: what a template reads of its stack's identity.

Every template has them besides its declared parameters: HOT's
``OS::stack_name``, ``OS::stack_id`` and ``OS::project_id``;
CloudFormation-format templates' ``AWS::StackName``, ``AWS::StackId`` (the
stack's ARN) and ``AWS::Region``.  A template version names its table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from urllib.parse import quote

#: the region a CloudFormation-format template's ``AWS::Region`` gives (Heat's)
CFN_REGION = "ap-southeast-1"


def stack_arn(project_id: str | None, stack_name: str, stack_id: str | None) -> str:
    """Return Heat's ARN of a stack: ``arn:openstack:heat::<project>:stacks/<name>/<id>``."""
    return (f"arn:openstack:heat::{quote(project_id or '', safe='')}:stacks/"
            f"{quote(stack_name, safe='')}/{quote(str(stack_id), safe='')}")


@dataclasses.dataclass(frozen=True, slots=True)
class PseudoParameter:
    """A parameter every template of a format has: a fact of the stack's identity.

    ``value`` gets the stack's ``(name, id, project_id)``, any of them
    unknown (empty or None) while a template is only validated.
    """

    name: str
    description: str
    value: Callable[[str, str | None, str | None], str]


HOT_PSEUDO_PARAMETERS = (
    PseudoParameter("OS::stack_id", "Stack ID", lambda name, id_, project: id_ or ""),
    PseudoParameter("OS::stack_name", "Stack Name", lambda name, id_, project: name or ""),
    PseudoParameter("OS::project_id", "Project ID", lambda name, id_, project: project or ""),
)
CFN_PSEUDO_PARAMETERS = (
    PseudoParameter("AWS::StackId", "Stack ID",
                    lambda name, id_, project: stack_arn(project, name, id_) if id_ else ""),
    PseudoParameter("AWS::StackName", "Stack Name", lambda name, id_, project: name or ""),
    PseudoParameter("AWS::Region", "", lambda name, id_, project: CFN_REGION),
)
