"""Cloud drivers: Salt Cloud's driver contract, configuration and client.

- :mod:`hearth.clouds.config`: providers, profiles and the lookups drivers use;
- :mod:`hearth.clouds.utils`: the helpers of ``salt.utils.cloud`` (events,
  waiting, calling conventions, secret scrubbing);
- :mod:`hearth.clouds.cloud`: :class:`~hearth.clouds.cloud.Cloud`, which runs
  the drivers of the configured providers;
- :mod:`hearth.clouds.deploy`: the deploy step and its extension point;
- :mod:`hearth.clouds.drivers`: the built-in drivers (``libcloud``, ``ec2``,
  ``local``), loaded by the one loader as the ``clouds`` family, with
  ``[DEFAULT] cloud_dirs`` for more.
"""
