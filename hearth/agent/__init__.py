"""hearth-agent (Salt's minion) and what the master needs to know about agents.

* :mod:`hearth.agent.main`: the ``hearth-agent`` command.
* :mod:`hearth.agent.connection`: authentication, the job socket, pings, reconnection.
* :mod:`hearth.agent.executor`: jobs run on threads through the one loader.
* :mod:`hearth.agent.returns`: returns kept on disk until the master acknowledges them.
* :mod:`hearth.agent.sync`: module files fetched from the master, checked by hash.
* :mod:`hearth.agent.settings`: ``[agent]`` as a record, and the modules' ``__opts__``.
* :mod:`hearth.agent.targeting`: which agents a target expression selects.
* :mod:`hearth.agent.batch`: how many agents a ``--batch`` spec runs at once.
"""
