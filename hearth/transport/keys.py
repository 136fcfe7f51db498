"""CURVE key pairs on disk (``<name>.key`` / ``<name>.key_secret``) and fingerprints.

Keys are stored as ZeroMQ certificates (Z85 text), written with
``zmq.auth.create_certificates``; the secret file is readable only by its
owner.  A fingerprint is the SHA-256 of the Z85 public key, as colon-separated
hex pairs: what an agent pins as ``master_finger``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from hearth.common import exception


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair, both halves as Z85 bytes (``secret`` may be None)."""

    public: bytes
    secret: bytes | None


def fingerprint(public: bytes | str) -> str:
    """Return the fingerprint of a Z85 public key: SHA-256 as ``aa:bb:...`` hex pairs."""
    raw = public.encode() if isinstance(public, str) else public
    digest = hashlib.sha256(raw).hexdigest()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def key_paths(directory: str, name: str) -> tuple[str, str]:
    """Return the public and secret certificate paths of key ``name`` in ``directory``."""
    base = os.path.join(directory, name)
    return f"{base}.key", f"{base}.key_secret"


def load_public(path: str) -> bytes:
    """Return the Z85 public key of the certificate at ``path``."""
    import zmq.auth

    try:
        public, _ = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as error:
        raise exception.KeyFileError(path=path, reason=error) from None
    return public


def load_or_create(directory: str, name: str) -> KeyPair:
    """Return the key pair ``name`` in ``directory``, creating it on first use.

    The directory is created with mode 0700 and the secret file gets 0600.
    """
    import zmq.auth

    public_path, secret_path = key_paths(directory, name)
    if not os.path.exists(secret_path):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        zmq.auth.create_certificates(directory, name)
        os.chmod(secret_path, 0o600)
    try:
        public, secret = zmq.auth.load_certificate(secret_path)
    except (OSError, ValueError) as error:
        raise exception.KeyFileError(path=secret_path, reason=error) from None
    return KeyPair(public, secret)


def load_pair(directory: str, name: str) -> KeyPair:
    """Return the existing key pair ``name`` in ``directory`` (never creates one)."""
    import zmq.auth

    _, secret_path = key_paths(directory, name)
    try:
        public, secret = zmq.auth.load_certificate(secret_path)
    except (OSError, ValueError) as error:
        raise exception.KeyFileError(path=secret_path, reason=error) from None
    return KeyPair(public, secret)


#: The key pair of the master's auth socket, public by design: an agent that
#: does not know the master's key yet can still speak CURVE (encrypted, and
#: its own key proven) to present itself and learn the master's key, which
#: it then checks against ``master_finger`` or its cached copy (Salt's
#: trust-on-first-use).  Nothing but authentication passes on that socket.
AUTH_BOOTSTRAP = KeyPair(b"uZUoEk{TA1Tg!YB.o+Wx^*b3y:h-o^=#w$o^Zt!/",
                         b"7@Zmh)H7f}3]>WGqAVGq=%HptayUqL2.O9lf/u*s")
