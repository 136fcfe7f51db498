"""stackctl commands, one module per subject; each defines ``register(subparsers)``.

:data:`COMMAND_GROUPS` is how ``stackctl --help`` lists them: by subject,
each group sorted; a test checks that every command is in one group.

:data:`MODULE_COMMANDS` names the commands each module registers, so that
stackctl builds the parser of the one command it runs (argparse builds
about sixty parsers otherwise, a fifth of a quick command's time); a test
checks it against what the modules register.
"""

#: command module -> the commands its ``register`` adds
MODULE_COMMANDS: dict[str, tuple[str, ...]] = {
    "clouds": (
        "cloud-providers", "cloud-profiles", "cloud-nodes", "cloud-create", "cloud-destroy",
        "cloud-action", "cloud-function", "cloud-map", "cloud-images", "cloud-sizes",
        "cloud-locations",
    ),
    "console": ("console",),
    "events": ("event-list",),
    "exec_modules": ("call", "module-list", "doc", "job-list", "job-show", "event-listen"),
    "hooks": ("hook-poll", "hook-clear"),
    "keeping": (
        "stack-snapshot", "snapshot-list", "snapshot-show", "snapshot-delete", "stack-restore",
        "stack-abandon", "stack-adopt",
    ),
    "keys": ("key-list", "key-accept", "key-reject", "key-delete", "key-finger",
             "agent-grains"),
    "local_engine": ("engine-status", "engine-stop"),
    "outputs": ("output-list", "output-show"),
    "pillar": ("pillar-show", "pillar-top"),
    "remote": ("agent-list", "master-stats", "run"),
    "resource_types": ("resource-type-list", "resource-type-show", "resource-type-template"),
    "resources": ("resource-list", "resource-show", "resource-metadata", "resource-signal"),
    "stack_graph": ("stack-graph",),
    "stacks": (
        "stack-create", "stack-update", "stack-delete", "stack-suspend", "stack-resume",
        "stack-check", "stack-cancel-update", "stack-list", "stack-show", "template-show",
    ),
    "template_validate": ("template-validate",),
    "template_versions": ("template-version-list", "template-function-list"),
}

#: command -> the module that registers it
COMMAND_MODULES: dict[str, str] = {command: module for module, commands in
                                   MODULE_COMMANDS.items() for command in commands}

#: Commands that talk to hearth-master with its client key, on the master's host: an
#: explicit ``--url`` is refused (hearth-api serves no recorded grains and no master
#: counters; the key commands are operations of its table).
MASTER_COMMANDS: frozenset[str] = frozenset({"agent-grains", "master-stats"})

#: ``stackctl --help``: (group title, its commands); listed in this order, sorted inside.
COMMAND_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Stacks", (
        "stack-create", "stack-update", "stack-delete", "stack-suspend", "stack-resume",
        "stack-check", "stack-cancel-update", "stack-list", "stack-show", "stack-graph",
        "stack-snapshot", "snapshot-list", "snapshot-show", "snapshot-delete", "stack-restore",
        "stack-abandon", "stack-adopt",
    )),
    ("Resources, events and outputs", (
        "resource-list", "resource-show", "resource-metadata", "resource-signal", "hook-poll",
        "hook-clear", "event-list", "output-list", "output-show",
    )),
    ("Templates and resource types", (
        "template-validate", "template-show", "template-version-list", "template-function-list",
        "resource-type-list", "resource-type-show", "resource-type-template",
    )),
    ("Agents, keys and jobs (Salt's salt, salt-key, salt-call, salt-run jobs)", (
        "run", "agent-list", "agent-grains", "key-list", "key-accept", "key-reject",
        "key-delete", "key-finger", "job-list", "job-show", "call", "module-list", "doc",
        "event-listen", "master-stats",
    )),
    ("Clouds (Salt's salt-cloud)", (
        "cloud-providers", "cloud-profiles", "cloud-nodes", "cloud-create", "cloud-destroy",
        "cloud-action", "cloud-function", "cloud-map", "cloud-images", "cloud-sizes",
        "cloud-locations",
    )),
    ("Pillar (agents' data)", ("pillar-show", "pillar-top")),
    ("The local engine (what stack commands talk to without --url) and the web console", (
        "engine-status", "engine-stop", "console",
    )),
)
