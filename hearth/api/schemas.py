"""JSON schemas of request bodies and answers: one table, read by handlers and OpenAPI.

Request schemas are enforced on every request (:func:`hearth.api.routing.validate_body`);
answer schemas describe what the handlers return and are held against a live
server by the tests.
"""

from __future__ import annotations

from typing import Any

from hearth.api.params import MAX_INTEGER

Schema = dict[str, Any]

_STRING = {"type": "string"}
_NULLABLE_STRING = {"type": ["string", "null"]}
_OBJECT = {"type": "object"}
_LINKS = {"type": "array", "items": {
    "type": "object", "required": ["href", "rel"],
    "properties": {"href": _STRING, "rel": _STRING}}}

# Request bodies take what Heat's API takes, no more and no less (checked
# against real Heat: tests/functional/api/request_cases.yaml).  Clients send
# null for an option they leave unset, so a null option is absent, except
# where Heat refuses it (disable_rollback, converge, parameters,
# clear_parameters of a PATCH).  Booleans and counts may come as strings, as
# Heat reads them.  An ``x-messages`` entry gives the message of a failing
# keyword ({key}: the field, {value}: what was sent).


def _boolean(key: str, nullable: bool = False) -> Schema:
    """Return the schema of a boolean that may also be "true"/"false" in any case."""
    message = f'Unrecognized value "{{value}}" for "{key}", acceptable values are: true, false.'
    return {"type": ["boolean", "string", *(["null"] if nullable else [])],
            "pattern": "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$",
            "x-messages": {"type": message, "pattern": message}}


def _count(key: str, description: str) -> Schema:
    """Return the schema of a non-negative integer, also written as a string; null is absent."""
    message = f"Only integer is acceptable by '{key}'."
    return {"type": ["integer", "string", "null"], "minimum": 0, "maximum": MAX_INTEGER,
            "pattern": "^(0|[1-9][0-9]*)$", "description": description,
            "x-messages": {"type": message, "pattern": message,
                           "minimum": f"Value '{{value}}' is invalid for '{key}' which only "
                                      "accepts non-negative integer.",
                           "maximum": f"Invalid value for '{key}': {{value}} is larger than "
                                      f"{MAX_INTEGER}."}}


def _refused(message: str) -> Schema:
    """Return the schema of a key that must not be given (even as null)."""
    return {"not": {}, "x-messages": {"not": message}}


_TAG_TOO_LONG = 'Invalid tag, "{value}": each tag is at most 80 characters, without commas'


def _no_nul(message: str) -> Schema:
    """Return the schema of a text kept in a database column: no U+0000.

    PostgreSQL's text cannot hold it; ``message`` is the refusal (``{value}``:
    the text sent).
    """
    return {"not": {"type": "string", "pattern": "\u0000"}, "x-messages": {"not": message}}


_NO_NUL = _no_nul('Invalid tag, "{value}": a tag may not contain a NUL character')
_NUL_REFUSED = "Invalid {what}: it may not contain a NUL character (U+0000)."

#: The glob of agent ids a key operation acts on (salt-key's match).
_KEY_MATCH: Schema = {"type": "string", "minLength": 1, "maxLength": 4096,
                      **_no_nul(_NUL_REFUSED.format(what="match")),
                      "description": "An agent id, or a glob of agent ids ('web*')."}
_KEY_IDS: Schema = {"type": "array", "items": _STRING}

_STACK_FIELDS: Schema = {
    "template": {"type": ["object", "string", "null"],
                 "description": "The template (map or text)."},
    "template_url": {"type": ["string", "null"],
                     "description": "http(s) URL of the template (when no template)."},
    "parameters": {"type": "object", "description": "Parameter values."},
    "environment": {"type": ["object", "string", "null"],
                    "description": "Environment (map or YAML); ignored when "
                                   "environment_files are given, as Heat does."},
    "environment_files": {"type": ["array", "null"], "items": _STRING,
                          "description": "Names in 'files' of environments to merge."},
    "files": {"type": ["object", "null"], "additionalProperties": _STRING,
              "description": "Contents of files the template refers to, by name."},
    "files_container": _NULLABLE_STRING,
    "disable_rollback": _boolean("disable_rollback"),
    "timeout_mins": _count("timeout_mins", "Action timeout in minutes (0: none)."),
    "tags": {"type": ["string", "array", "null"],
             "pattern": "^[^,]{0,80}(,[^,]{0,80})*$", **_NO_NUL,
             "items": {"type": "string", "pattern": "^[^,]{0,80}$", **_NO_NUL,
                       "x-messages": {"pattern": _TAG_TOO_LONG, **_NO_NUL["x-messages"]}},
             "description": "Comma-separated string (or list) of tags, each at most "
                            "80 characters.",
             "x-messages": {"pattern": _TAG_TOO_LONG, **_NO_NUL["x-messages"]}},
}

_CONVERGE_ON_CREATE = _refused(
    "converge flag only supported in stack update (or update preview) request.")

_STACK_UPDATE_FIELDS: Schema = {
    **_STACK_FIELDS,
    "clear_parameters": {"type": ["array", "string", "null"], "items": _STRING,
                         "description": "Parameters to reset to their default "
                                        "(PATCH, or existing)."},
    "converge": _boolean("converge"),
    "existing": _boolean("existing", nullable=True),
}

REQUESTS: dict[str, Schema] = {
    "StackCreate": {"type": "object", "required": ["stack_name"],
                    "properties": {"stack_name": {"description": (
                        "The stack's name: a letter, then letters, digits, '_', '.' or "
                        "'-' (at most 255 characters); the engine checks it, with "
                        "Heat's message.")},
                                   "adopt_stack_data": {"type": ["object", "string"]},
                                   "converge": _CONVERGE_ON_CREATE,
                                   **_STACK_FIELDS}},
    "StackUpdate": {"type": "object", "properties": _STACK_UPDATE_FIELDS},
    "StackPatch": {"type": "object", "properties": {
        **_STACK_UPDATE_FIELDS,
        "clear_parameters": {**_STACK_UPDATE_FIELDS["clear_parameters"],
                             "type": ["array", "string"]}}},
    "Validate": {"type": "object", "properties": {**_STACK_FIELDS}},
    "StackAction": {"type": "object", "minProperties": 1, "maxProperties": 1,
                    "description": "Exactly one of suspend, resume, check, cancel_update, "
                                   "cancel_without_rollback (value ignored).",
                    "x-messages": {"minProperties": "No action specified",
                                   "maxProperties": "Multiple actions specified",
                                   "type": "No action specified"}},
    "MarkUnhealthy": {"type": "object", "required": ["mark_unhealthy"],
                      "additionalProperties": False,
                      "properties": {"mark_unhealthy": _boolean("mark_unhealthy"),
                                     "resource_status_reason": {
                                         **_NULLABLE_STRING, **_no_nul(_NUL_REFUSED.format(
                                             what="resource_status_reason"))}},
                      "x-messages": {
                          "required": "Missing mandatory (mark_unhealthy) key from mark "
                                      "unhealthy request",
                          "additionalProperties": "Invalid keys in resource mark "
                                                  "unhealthy: {extra}"}},
    "Signal": {"description": "Any JSON value (the signal's details), or nothing."},
    "SnapshotCreate": {"type": ["object", "null"],
                       "properties": {"name": {"type": ["string", "null"],
                                               "description": "The snapshot's name.",
                                               **_no_nul(_NUL_REFUSED.format(
                                                   what="snapshot name"))}}},
    "JobRun": {"type": "object", "required": ["target", "function"],
               "additionalProperties": False,
               "properties": {
                   "target": {"type": ["string", "array"], "minLength": 1, "minItems": 1,
                              "items": {**_STRING, **_no_nul(_NUL_REFUSED.format(
                                  what="target"))},
                              **_no_nul(_NUL_REFUSED.format(what="target")),
                              "description": "Target expression (or a list of agent ids)."},
                   "target_type": {"type": "string", "description": "Salt's target type "
                                   "(glob, pcre, list, grain, compound, nodegroup...)."},
                   "function": {"type": "string", "minLength": 1,
                                **_no_nul(_NUL_REFUSED.format(what="function")),
                                "description": "The execution function, module.function."},
                   "args": {"type": "array"}, "kwargs": _OBJECT,
                   "timeout": {"type": "number", "minimum": 0,
                               "description": "Seconds to wait for returns (not a kill)."},
                   "batch": {"type": ["string", "integer"],
                             "description": "Run on N, or P%, of the agents at a time."},
                   "pillar": {"type": "object", "description": "Per-call pillar override "
                              "(the function's pillar= keyword)."},
                   "async": {"type": "boolean",
                             "description": "Answer 202 with the job id at once."}}},
    "KeyMatch": {"type": "object", "required": ["match"], "additionalProperties": False,
                 "properties": {"match": _KEY_MATCH}},
    "KeyAccept": {"type": "object", "required": ["match"], "additionalProperties": False,
                  "properties": {
                      "match": _KEY_MATCH,
                      "include_rejected": {"type": "boolean",
                                           "description": "Also accept matching rejected "
                                                          "keys."},
                      "grains": {"type": "object",
                                 "description": "Grains to record master-side for each "
                                                "accepted agent (the local user's right)."}}},
}

_STACK_SUMMARY: Schema = {
    "type": "object",
    "required": ["id", "stack_name", "stack_status", "creation_time", "links"],
    "properties": {
        "id": _STRING, "stack_name": _STRING, "links": _LINKS,
        "description": _NULLABLE_STRING, "stack_status": _STRING,
        "stack_status_reason": _NULLABLE_STRING, "creation_time": _NULLABLE_STRING,
        "updated_time": _NULLABLE_STRING, "deletion_time": _NULLABLE_STRING,
        "stack_owner": _NULLABLE_STRING, "parent": _NULLABLE_STRING,
        "tags": {"type": ["array", "null"]},
        "project": {"type": "string",
                    "description": "The stack's project (stack listings of an admin)."},
    },
}

_STACK: Schema = {
    **_STACK_SUMMARY,
    "required": [*_STACK_SUMMARY["required"], "parameters", "disable_rollback"],
    "properties": {**_STACK_SUMMARY["properties"],
                   "parameters": _OBJECT, "outputs": {"type": "array"},
                   "disable_rollback": {"type": "boolean"},
                   "timeout_mins": {"type": ["integer", "null"]},
                   "capabilities": {"type": "array"},
                   "notification_topics": {"type": "array"},
                   "template_description": _NULLABLE_STRING},
}

_RESOURCE: Schema = {
    "type": "object",
    "required": ["resource_name", "logical_resource_id", "physical_resource_id",
                 "resource_type", "resource_status", "links", "required_by"],
    "properties": {"resource_name": _STRING, "logical_resource_id": _STRING,
                   "physical_resource_id": {"type": ["string", "null"]},
                   "resource_type": _STRING, "resource_status": _STRING,
                   "resource_status_reason": _NULLABLE_STRING,
                   "creation_time": _NULLABLE_STRING, "updated_time": _NULLABLE_STRING,
                   "required_by": {"type": "array", "items": _STRING}, "links": _LINKS,
                   "parent_resource": {"type": "string", "description": (
                       "A nested stack's resource: the parent stack's resource holding "
                       "the nested stack (links: 'stack' is the nested stack, 'nested' "
                       "the stack a resource holds).")}},
}

_EVENT: Schema = {
    "type": "object",
    "required": ["id", "event_time", "resource_name", "resource_status", "links"],
    "properties": {"id": _STRING, "event_time": _STRING, "resource_name": _STRING,
                   "logical_resource_id": _STRING,
                   "physical_resource_id": {"type": ["string", "null"]},
                   "resource_status": _STRING, "resource_status_reason": _NULLABLE_STRING,
                   "links": _LINKS},
}


def _wrap(key: str, schema: Schema) -> Schema:
    return {"type": "object", "required": [key], "properties": {key: schema}}


def _list_of(key: str, schema: Schema) -> Schema:
    return _wrap(key, {"type": "array", "items": schema})


_SNAPSHOT: Schema = {
    "type": "object",
    "required": ["id", "name", "action", "status", "status_reason", "data", "creation_time"],
    "properties": {"id": _STRING, "name": _NULLABLE_STRING, "action": _STRING,
                   "status": _STRING, "status_reason": _NULLABLE_STRING,
                   "data": {"type": ["object", "null"]}, "creation_time": _NULLABLE_STRING},
}

RESPONSES: dict[str, Schema] = {
    "Error": {"type": "object", "required": ["code", "title", "explanation", "error"],
              "properties": {"code": {"type": "integer"}, "title": _STRING,
                             "explanation": _STRING,
                             "error": {"type": "object", "required": ["type", "message"],
                                       "properties": {"type": _STRING, "message": _STRING,
                                                      "traceback": {"type": "null"}}}}},
    "Versions": _list_of("versions", {"type": "object", "required": ["id", "status", "links"]}),
    "StackCreated": _wrap("stack", {"type": "object", "required": ["id", "links"],
                                    "properties": {"id": _STRING, "links": _LINKS}}),
    "StackList": {**_list_of("stacks", _STACK_SUMMARY),
                  "properties": {"stacks": {"type": "array", "items": _STACK_SUMMARY},
                                 "links": _LINKS, "count": {"type": "integer"}}},
    "StackDetailList": _list_of("stacks", _STACK),
    "Stack": _wrap("stack", _STACK),
    "StackPreview": _wrap("stack", {"type": "object", "required": ["stack_name"]}),
    "UpdatePreview": _wrap("resource_changes", {
        "type": "object",
        "properties": {k: {"type": "array"}
                       for k in ("added", "deleted", "replaced", "updated", "unchanged")}}),
    "StackData": {"type": "object", "required": ["id", "name", "template", "resources"]},
    "Snapshot": _SNAPSHOT,
    "SnapshotShow": _wrap("snapshot", _SNAPSHOT),
    "SnapshotList": _list_of("snapshots", _SNAPSHOT),
    "Map": _OBJECT,
    "Files": {"type": "object", "additionalProperties": _STRING},
    "Accepted": {"type": "object", "required": ["code", "title"]},
    "Redirect": {"type": "object", "required": ["code", "title", "message"]},
    "Null": {"type": "null"},
    "OutputList": _list_of("outputs", {"type": "object", "required": ["output_key"]}),
    "Output": _wrap("output", {"type": "object", "required": ["output_key"]}),
    "ResourceList": _list_of("resources", _RESOURCE),
    "Resource": _wrap("resource", {**_RESOURCE,
                                   "properties": {**_RESOURCE["properties"],
                                                  "attributes": _OBJECT}}),
    "Metadata": _wrap("metadata", _OBJECT),
    "EventList": _list_of("events", _EVENT),
    "Event": _wrap("event", _EVENT),
    "Validation": {"type": "object", "required": ["Parameters"]},
    "TemplateVersions": _list_of("template_versions", {
        "type": "object", "required": ["version", "type"]}),
    "TemplateFunctions": _list_of("template_functions", {
        "type": "object", "required": ["functions", "description"]}),
    "ResourceTypes": _list_of("resource_types", {"type": ["string", "object"]}),
    "ResourceTypeSchema": {"type": "object", "required": ["resource_type", "properties",
                                                          "attributes"]},
    "BuildInfo": {"type": "object", "required": ["api", "engine"]},
    "Services": _list_of("services", _OBJECT),
    "OpenAPI": {"type": "object", "required": ["openapi", "paths"]},
    "StackGraph": {"type": "object", "required": ["name", "nodes", "edges", "clusters"],
                   "properties": {"name": _STRING, "state": _NULLABLE_STRING,
                                  "nodes": {"type": "array"}, "edges": {"type": "array"},
                                  "clusters": _OBJECT}},
    "JobPublished": {"type": "object", "required": ["jid", "targeted"],
                     "properties": {"jid": _STRING,
                                    "targeted": {"type": "array", "items": _STRING}}},
    "Job": _wrap("job", {"type": "object",
                         "required": ["jid", "fun", "targeted", "returns", "missing", "done"],
                         "properties": {"jid": _STRING, "fun": _STRING,
                                        "targeted": {"type": "array", "items": _STRING},
                                        "returns": _OBJECT, "missing": _OBJECT,
                                        "done": {"type": "boolean"}}}),
    "JobList": _list_of("jobs", {"type": "object", "required": ["jid", "function"]}),
    "AgentList": _list_of("agents", {"type": "object",
                                     "required": ["id", "grains", "connected", "last_seen"],
                                     "properties": {"id": _STRING, "grains": _OBJECT,
                                                    "connected": {"type": "boolean"},
                                                    "last_seen": _NULLABLE_STRING}}),
    "KeyListing": _wrap("keys", {
        "type": "object", "description": "Agent ids by Salt's key category (salt-key -L).",
        "required": ["minions", "minions_denied", "minions_pre", "minions_rejected"],
        "properties": {"minions": _KEY_IDS, "minions_denied": _KEY_IDS,
                       "minions_pre": _KEY_IDS, "minions_rejected": _KEY_IDS}}),
    "KeyIds": _wrap("keys", {**_KEY_IDS, "description": "The ids acted on."}),
    "KeyFingerprints": _wrap("fingerprints", {
        "type": "object", "description": "Salt's key category (and 'local', the master's "
                                         "own key) -> {id: fingerprint} (salt-key -F).",
        "required": ["minions", "minions_denied", "minions_pre", "minions_rejected"],
        "additionalProperties": {"type": "object", "additionalProperties": _STRING}}),
    "MasterFinger": {"type": "object", "required": ["public", "fingerprint"],
                     "properties": {"public": _STRING, "fingerprint": _STRING}},
    "Pillar": _wrap("pillar", {**_OBJECT, "description": "The agent's compiled pillar "
                               "(secret values, not masked), with '_errors' if any."}),
    "PillarTop": _wrap("top", _OBJECT),
}
