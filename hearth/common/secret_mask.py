"""What a user sees in place of a secret: ``******``, everywhere Hearth shows one.

Hidden parameters (stack show, environment, export, abandon), resource
data stored with ``redact`` (resource metadata and data listings, abandon),
a secret found in a status reason or event, and a cloud provider's secret
options all read :data:`SECRET_MASK`.  Adopting abandon data depends on it
being one value: a hidden parameter or redacted datum equal to the mask is
not a value and is not kept.  (Pillar display follows Salt instead, with
its own ten stars: :mod:`hearth.pillar.mask`.)
"""

from __future__ import annotations

SECRET_MASK = "******"
