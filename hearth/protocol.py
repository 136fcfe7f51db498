"""The master/agent protocol as data: every message each side accepts, as JSON Schema.

One table per direction and socket (a :class:`~hearth.transport.gate.Channel`):

``AUTH``
    What anyone may send the master's auth port: an agent presenting its id
    (and, connected with its enrollment key, its own new key as ``enroll``).
``AGENT``
    What an accepted agent sends the master's job port, by ``cmd``.
``CLIENT``
    What a client (stackctl, hearth-api, the engine) sends the job port, by ``op``.
``AUTH_REPLY``
    What the master answers on the auth port.
``MASTER``
    What the master sends an agent on the job port, by ``cmd``.

The daemons check every received message against its type's schema (JSON
Schema 2020-12; patterns are ECMA 262 regular expressions) before a handler
sees it (:class:`~hearth.transport.gate.Gate`), so a handler may
rely on the types declared here.  Schemas name the keys a handler reads;
other keys are allowed, so a newer peer may add some.  The sizes that bound
a message before it is read are here too.
"""

from __future__ import annotations

from typing import Any

from hearth.common.config import MIN_MESSAGE_SIZE
from hearth.jobs import JID_PATTERN
from hearth.transport.gate import Channel

#: Largest frame the master's auth port reads (an id and a key; anything larger is hostile).
AUTH_MAX_MESSAGE_SIZE = 4096
#: What ZeroMQ and CURVE add around a message's JSON (the frame ZeroMQ measures).
FRAME_OVERHEAD = 256

ANY: dict[str, Any] = {}
STRING = {"type": "string"}
TEXT = {"type": "string", "minLength": 1, "maxLength": 4096}
OPTIONAL_STRING = {"type": ["string", "null"]}
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}
OBJECT = {"type": "object"}
ARRAY = {"type": "array"}
JID = {"type": "string", "pattern": JID_PATTERN.pattern}
AGENT_ID = {"type": "string", "minLength": 1, "maxLength": 255}
TARGET = {"type": ["string", "array"], "items": STRING}
MESSAGE_SIZE = {"type": "integer", "minimum": MIN_MESSAGE_SIZE}
#: Seconds between an agent's pings the master asks for (a large fleet pings less often).
PING_INTERVAL = {"type": "number", "minimum": 0, "maximum": 3600}


def message(type_field: str | None, name: str, required: dict[str, Any] | None = None,
            optional: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """Return the schema of a message: an object with these keys of these types."""
    required = required or {}
    properties = {**required, **(optional or {})}
    if type_field is not None:
        properties[type_field] = {"const": name}
    return {"type": "object", "properties": properties,
            "required": sorted([*required, *([type_field] if type_field else [])]), **extra}


def _agent(name: str, required: dict[str, Any] | None = None,
           optional: dict[str, Any] | None = None, **extra: Any) -> tuple[str, dict[str, Any]]:
    return name, message("cmd", name, required, optional, **extra)


def _client(name: str, required: dict[str, Any] | None = None,
            optional: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    return name, message("op", name, {"rid": INTEGER, **(required or {})}, optional)


#: A CURVE public key in Z85 text (ZeroMQ RFC 32's alphabet).
PUBLIC_KEY = {"type": "string", "pattern": r"^[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}$"}

AUTH = Channel("auth", {"auth": message(None, "auth", {"id": AGENT_ID},
                                        {"enroll": PUBLIC_KEY})},
               type_field=None, description="the auth port")

AGENT = Channel("agent", dict([
    _agent("hello", {"grains": OBJECT}),
    _agent("ping", {"running": {"type": "array", "items": STRING}},
           {"dropped": {"type": "integer", "minimum": 0}}),
    _agent("ret", {"jid": JID, "return": ANY, "retcode": INTEGER, "success": BOOLEAN},
           {"id": STRING, "fun": STRING, "fun_args": ARRAY, "out": OPTIONAL_STRING}),
    _agent("event", {"tag": TEXT}, {"data": ANY}),
    _agent("req", {"rid": INTEGER, "op": STRING},
           {"name": STRING, "pillar_override": {"type": ["object", "null"]}},
           **{"if": {"properties": {"op": {"const": "module_get"}}},
              "then": {"required": ["name"]}}),
]), description="the job port (agent messages)")

CLIENT = Channel("client", dict([
    _client("ping"),
    _client("finger"),
    _client("stats"),
    _client("agents", {}, {"pillar": BOOLEAN, "grains": BOOLEAN}),
    _client("keys"),
    _client("key_finger", {}, {"pattern": TEXT}),
    _client("key_accept", {"pattern": TEXT}, {"include_rejected": BOOLEAN, "grains": OBJECT}),
    _client("key_reject", {"pattern": TEXT}),
    _client("key_delete", {"pattern": TEXT}),
    _client("key_preseed", {"id": AGENT_ID}),
    _client("key_enroll", {"id": AGENT_ID}, {"ttl": {"type": ["number", "string", "null"]}}),
    _client("agent_pillar", {"id": AGENT_ID}),
    _client("agent_grains", {"id": AGENT_ID, "grains": OBJECT}),
    _client("publish", {"target": TARGET, "fun": TEXT,
                        "targeted": {"type": "array", "items": AGENT_ID}},
            {"target_type": STRING, "args": ARRAY, "kwargs": OBJECT,
             "user": OPTIONAL_STRING, "batch": {"type": ["string", "integer", "null"]},
             "timeout": {"type": ["number", "null"], "minimum": 0}, "watch": BOOLEAN}),
    _client("status", {"jid": STRING}),
    _client("watch", {"jid": STRING}),
    _client("unwatch", {"jid": STRING}),
    _client("list_jobs", {}, {"limit": {"type": ["integer", "null"], "minimum": 0}}),
    _client("events", {}, {"tag": STRING}),
    _client("events_stop"),
]), type_field="op", description="the job port (client requests)")

AUTH_REPLY = Channel("auth-reply", {"auth-reply": message(
    None, "auth-reply",
    {"status": {"enum": ["accepted", "pending", "rejected", "denied"]}},
    {"master_pub": PUBLIC_KEY},
    **{"if": {"properties": {"status": {"const": "accepted"}}},
       "then": {"required": ["master_pub"]}})},
    type_field=None, description="the master's auth port")

MASTER = Channel("master", dict([
    _agent("job", {"jid": JID, "fun": TEXT},
           {"arg": ARRAY, "kwarg": OBJECT, "tgt": ANY, "tgt_type": STRING,
            "user": OPTIONAL_STRING}),
    _agent("ack", {"jid": STRING}),
    _agent("welcome", {"boot": STRING}, {"max_message_size": MESSAGE_SIZE,
                                         "ping_interval": PING_INTERVAL}),
    _agent("pong", {"boot": STRING}, {"max_message_size": MESSAGE_SIZE,
                                      "ping_interval": PING_INTERVAL}),
    _agent("rep", {"rid": INTEGER},
           {"data": ANY, "error": {"type": ["string", "object", "null"]}}),
    # to a peer whose key is no longer accepted: authenticate again (and learn why)
    _agent("reauth"),
]), description="the master's job port")
