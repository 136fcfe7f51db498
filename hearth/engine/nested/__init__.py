"""Nested stacks: resources whose physical resource is a stack of this engine.

:mod:`~hearth.engine.nested.stack_resource` is the base class
(:class:`StackResource`), :mod:`~hearth.engine.nested.template_resource` the
provider templates built on it; :mod:`~hearth.engine.nested.children` validates
and prepares a child stack with its parent, :mod:`~hearth.engine.nested.runtime`
stores, loads and runs it (the run-time half: the database and the green
threads, which the plug-ins reach only through
:meth:`StackResource.child_stacks`), :mod:`~hearth.engine.nested.limits`
checks the depth and tree-size limits,
and :mod:`~hearth.engine.nested.environment` derives a child's environment
(previews of nested stacks are the service's: :mod:`hearth.engine.service.preview`).
"""
