"""Greet people: a worked example of a Hearth execution module.

Functions are the module's public callables; ``__virtual__`` decides
whether (and under which name) the module loads on this host.  The
loader injects ``__salt__`` (every loaded function, for cross calls),
``__grains__`` (facts about this host) and ``__opts__`` (configuration).
"""

__virtualname__ = "greeting"


def __virtual__():
    """Load everywhere, under the name ``greeting``."""
    return __virtualname__


def hello(name="world", shout=False):
    """Return a greeting for ``name``; ``shout=True`` says it in capitals.

    CLI example::

        stackctl call greeting.hello name=Ada shout=true
    """
    text = f"Hello, {name}!"
    return text.upper() if shout else text


def host_report():
    """Return this host's kernel and whether ``test.ping`` answers (a cross call)."""
    return {"kernel": __grains__.get("kernel"), "ping": __salt__["test.ping"]()}
