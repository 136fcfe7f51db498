"""CURVE key pairs read, made and checked with ZeroMQ: the certificate files of :mod:`.keys`.

Keys are stored as ZeroMQ certificates (Z85 text), written with
``zmq.auth.create_certificates``; the secret file is readable only by its
owner.  What a key is and where its files are (:class:`~hearth.transport.keys.KeyPair`,
:func:`~hearth.transport.keys.key_paths`, fingerprints) needs no ZeroMQ and
lives in :mod:`hearth.transport.keys`, which ``stackctl``'s light paths
load; this module is loaded by the code that makes or reads keys (the
master, the agent, their clients, the local cloud driver), all of which
speak ZeroMQ anyway.
"""

from __future__ import annotations

import os

import zmq
import zmq.auth
from zmq.utils import z85

from hearth.common import exception
from hearth.transport.keys import KeyPair, key_paths


def load_certificate(path: str) -> KeyPair:
    """Return the key pair of the certificate file ``path`` (``secret`` None in a public one)."""
    try:
        public, secret = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as error:
        raise exception.KeyFileError(path=path, reason=error) from None
    return KeyPair(public, secret)


def load_public(path: str) -> bytes:
    """Return the Z85 public key of the certificate at ``path``."""
    return load_certificate(path).public


def load_pair(directory: str, name: str) -> KeyPair:
    """Return the existing key pair ``name`` in ``directory`` (never creates one)."""
    return load_certificate(key_paths(directory, name)[1])


def load_or_create(directory: str, name: str) -> KeyPair:
    """Return the key pair ``name`` in ``directory``, creating it on first use.

    The directory is created with mode 0700 and the secret file gets 0600.
    """
    secret_path = key_paths(directory, name)[1]
    if not os.path.exists(secret_path):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        zmq.auth.create_certificates(directory, name)
        os.chmod(secret_path, 0o600)
    return load_certificate(secret_path)


def generate() -> KeyPair:
    """Return a new CURVE key pair (nothing is written)."""
    public, secret = zmq.curve_keypair()
    return KeyPair(public, secret)


def is_public_key(text: str | bytes) -> bool:
    """Return whether ``text`` is a Z85 CURVE public key (40 characters, 32 bytes)."""
    raw = text.encode() if isinstance(text, str) else text
    if not isinstance(raw, bytes) or len(raw) != 40:
        return False
    try:
        return len(z85.decode(raw)) == 32
    except (ValueError, KeyError, TypeError):
        return False
