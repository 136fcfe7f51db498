"""The wire between hearth-master, its agents and its clients: ZeroMQ with CURVE.

* :mod:`hearth.transport.keys`: CURVE key pairs, where their files are,
  fingerprints (no ZeroMQ: ``stackctl`` loads it);
  :mod:`hearth.transport.certificates` reads, makes and checks them with ZeroMQ.
* :mod:`hearth.transport.curve`: sockets with CURVE set up (servers and
  clients) and the ZAP handler through which a server decides who may talk.
* :mod:`hearth.transport.wire`: the message encoding (with bounded depth)
  and the outbox that lets any thread hand a message to the thread that
  owns a socket.
* :mod:`hearth.transport.gate`: what every received message passes before
  a handler sees it: decoded, checked against its type's schema, counted,
  and logged once per peer when dropped.

Nothing here knows about jobs or agents: the master and the agent declare
their protocol on top (:mod:`hearth.protocol`).
"""
