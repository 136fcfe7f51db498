"""The intrinsic functions of templates, one module per family.

- :mod:`.references` reads parameters, resources, attributes and files,
- :mod:`.strings` builds and splits strings,
- :mod:`.collections` builds lists and maps,
- :mod:`.conditions` holds the condition functions and the ``if`` macro,
- :mod:`.yaql` evaluates yaql expressions,
- :mod:`.cfn` holds the CloudFormation-style functions (of CloudFormation-format
  templates, some of HOT 2013-05-23 too),
- :mod:`.removed` holds the markers of the version tables.

Which name maps to which class in which version is decided only by
:mod:`hearth.engine.template.versions`.
"""
