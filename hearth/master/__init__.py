"""hearth-master: keys, job publishing, returns, the job cache, the master bus.

* :mod:`hearth.master.keys`: agent keys in accepted/pending/rejected/denied.
* :mod:`hearth.master.server`: the daemon's I/O loop (sockets, dispatch, agent messages).
* :mod:`hearth.master.requests`: what clients may ask (publish, wait, keys, events).
* :mod:`hearth.master.agent_messages`: what agents tell the master (hello, returns, auth).
* :mod:`hearth.master.jobs`: jobs in flight (who was targeted, who returned, batches).
* :mod:`hearth.master.agents`: connected agents, their grains and presence.
* :mod:`hearth.master.cache`: the thread that writes the job cache.
* :mod:`hearth.master.sync`: the module files served to agents, with their hashes.
* :mod:`hearth.master.settings`: ``[master]`` as a record.
* :mod:`hearth.master.client`: :class:`MasterClient`, how every client talks to the master.
* :mod:`hearth.master.main`: the ``hearth-master`` command.
"""
