"""The pure rules of ``OS::Heat::ResourceGroup`` and ``OS::Heat::ResourceChain``.

The plug-ins (:mod:`hearth.plugins.resource_group`,
:mod:`hearth.plugins.resource_chain`) drive nested stacks; what they decide
is plain data computed here, without a stack or a database:

- :mod:`~hearth.plugins._group.names`: member names "0", "1", ..., the
  stored skip-list of removed names and the removal policies feeding it.
- :mod:`~hearth.plugins._group.definitions`: a member's definition from
  ``resource_def`` (``%index%`` replaced) and the nested templates of a
  group (whole, or one batch of a rolling update) and of a chain.
- :mod:`~hearth.plugins._group.batches`: the batches of a group's rolling
  update and batched create, and the pauses checked against the timeout.
- :mod:`~hearth.plugins._group.attributes`: what ``get_attr`` of a group or
  a chain reads from its members.
"""
