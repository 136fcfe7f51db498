"""Scaling groups' pure rules (as Heat's ``heat/scaling``), shared by the group plug-ins.

- :mod:`~hearth.engine.scaling.capacity`: the new size a scaling adjustment asks for.
- :mod:`~hearth.engine.scaling.cooldown`: whether a group may scale now, kept in its metadata.
- :mod:`~hearth.engine.scaling.members`: member names and the nested template of the members.
- :mod:`~hearth.engine.scaling.rolling_update`: the batches of a rolling update.
"""
