"""Cloud drivers: Salt Cloud's driver contract, configuration and client.

- :mod:`hearth.clouds.config`: providers, profiles and the lookups drivers use;
- :mod:`hearth.clouds.utils`: the helpers of ``salt.utils.cloud`` (events,
  waiting, calling conventions, secret scrubbing), with the node cache of
  :mod:`hearth.clouds.cachedir` and the deploy helpers of
  :mod:`hearth.clouds.salt_deploy`;
- :mod:`hearth.clouds.salt_names`: Salt's import names and the ``__utils__``
  a driver written for Salt Cloud finds;
- :mod:`hearth.clouds.cloud`: :class:`~hearth.clouds.cloud.Cloud`, which runs
  the drivers of the configured providers;
- :mod:`hearth.clouds.deploy`: the deploy step and its extension point;
- :mod:`hearth.clouds.drivers`: the built-in drivers (``libcloud``, ``ec2``,
  ``local``), loaded by the one loader as the ``clouds`` family, with
  ``[DEFAULT] cloud_dirs`` for more; the ``ec2`` driver's credentials and
  regions are :mod:`hearth.clouds.ec2_session`'s, its launch request
  :mod:`hearth.clouds.ec2_request`'s, its reading of EC2's answers
  :mod:`hearth.clouds.ec2_nodes`'.
"""
