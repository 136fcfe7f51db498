"""stackctl's commands, one module per subject; each defines ``register(subparsers)``.

:data:`TABLE` names each command's module and its one-line summary, in the
groups ``stackctl --help`` lists them by (sorted inside each group).
stackctl imports only the module of the command it runs, and none for
``--help``; a test checks the table against what the modules register.
"""

from hearth.cli.command_table import Command, CommandTable

#: Commands that talk to hearth-master with its client key, on the master's host: an
#: explicit ``--url`` is refused (hearth-api serves no recorded grains and no master
#: counters; the key commands are operations of its table).
MASTER_COMMANDS: frozenset[str] = frozenset({"agent-grains", "master-stats"})

#: Every stackctl command: its module and summary, by the group ``--help`` lists it in.
TABLE = CommandTable("hearth.cli.commands", (
    ("Stacks", {
        "stack-create": Command("stacks", "Create a stack and wait for it."),
        "stack-update": Command("stacks", "Update a stack and wait for it."),
        "stack-delete": Command("stacks", "Delete stacks and wait for them."),
        "stack-suspend": Command("stacks", "Suspend a stack's resources (dependents first)."),
        "stack-resume": Command("stacks", "Resume a suspended stack's resources."),
        "stack-check": Command("stacks", "Check that every resource of a stack is healthy."),
        "stack-cancel-update": Command(
            "stacks",
            "Cancel a running update and roll back to the previous template."),
        "stack-list": Command("stacks", "List stacks."),
        "stack-show": Command("stacks", "Show a stack."),
        "stack-graph": Command(
            "stack_graph",
            "Draw the dependency graph of a stack or a template (DOT, SVG or PNG)."),
        "stack-snapshot": Command("keeping", "Make a snapshot of a stack."),
        "snapshot-list": Command("keeping", "List the snapshots of a stack."),
        "snapshot-show": Command("keeping", "Show a snapshot of a stack."),
        "snapshot-delete": Command("keeping", "Delete a snapshot of a stack."),
        "stack-restore": Command("keeping", "Restore a snapshot of a stack."),
        "stack-abandon": Command(
            "keeping",
            "Abandon a stack: forget it but keep its resources; print its adoptable JSON data "
            "(needs enable_stack_abandon)."),
        "stack-adopt": Command(
            "keeping",
            "Adopt a stack from abandon data (needs enable_stack_adopt)."),
    }),
    ("Resources, events and outputs", {
        "resource-list": Command("resources", "List a stack's resources."),
        "resource-show": Command("resources", "Show a resource."),
        "resource-metadata": Command("resources", "Show a resource's metadata."),
        "resource-signal": Command("resources", "Signal a resource."),
        "hook-poll": Command("hooks", "List resources with pending hooks."),
        "hook-clear": Command("hooks", "Clear hooks on resources of a stack."),
        "event-list": Command("events", "List a stack's events."),
        "output-list": Command("outputs", "List a stack's outputs."),
        "output-show": Command("outputs", "Show a stack's output values."),
    }),
    ("Templates and resource types", {
        "template-validate": Command(
            "template_validate",
            "Validate a template and show its description and parameters."),
        "template-show": Command("stacks", "Show a stack's template."),
        "template-version-list": Command(
            "template_versions",
            "List the template versions (HOT and CloudFormation format) this engine understands."),
        "template-function-list": Command(
            "template_versions",
            "List the intrinsic functions of a template version."),
        "resource-type-list": Command("resource_types", "List the available resource types."),
        "resource-type-show": Command(
            "resource_types",
            "Show a resource type's properties, attributes and support status."),
        "resource-type-template": Command(
            "resource_types",
            "Generate a template wrapping a resource type."),
    }),
    ("Agents, keys and jobs (Salt's salt, salt-key, salt-call, salt-run jobs)", {
        "run": Command("remote", "Run an execution function on agents (like salt)."),
        "agent-list": Command(
            "remote",
            "List the accepted agents, connected or not (like manage.status); with --url, those "
            "the project may target."),
        "agent-grains": Command(
            "keys",
            "Show or record the grains the master holds true about an agent."),
        "key-list": Command(
            "keys",
            "List the agent keys: accepted, denied, unaccepted, rejected (salt-key -L, -l)."),
        "key-accept": Command("keys", "Accept pending agent keys (ID may be a glob; salt-key -a)."),
        "key-reject": Command(
            "keys",
            "Reject agent keys; connected agents are cut off (salt-key -r)."),
        "key-delete": Command(
            "keys",
            "Delete agent keys; connected agents are cut off (salt-key -d)."),
        "key-finger": Command(
            "keys", "Show the master's key fingerprint, or agent keys' (salt-key -F, -f)."),
        "job-list": Command(
            "exec_modules",
            "List the jobs in the job cache (salt-run jobs.list_jobs)."),
        "job-show": Command(
            "exec_modules",
            "Show one job of the job cache (salt-run jobs.lookup_jid)."),
        "call": Command(
            "exec_modules",
            "Run an execution function locally (like salt-call --local)."),
        "module-list": Command(
            "exec_modules",
            "List the execution modules (salt-call sys.list_modules)."),
        "doc": Command(
            "exec_modules",
            "Show the documentation of execution functions (salt-call sys.doc)."),
        "event-listen": Command("exec_modules", "Print a running engine's bus events live."),
        "master-stats": Command(
            "remote",
            "Show the master's counters: uptime, agents, jobs, messages received, dropped and "
            "failed."),
    }),
    ("Clouds (Salt's salt-cloud)", {
        "cloud-providers": Command(
            "clouds",
            "List the cloud providers and whether their driver loads (salt-cloud "
            "--list-providers)."),
        "cloud-profiles": Command(
            "clouds",
            "List the cloud profiles (salt-cloud --list-profiles)."),
        "cloud-nodes": Command("clouds", "List the nodes of every cloud provider (salt-cloud -Q)."),
        "cloud-create": Command("clouds", "Create nodes from a cloud profile (salt-cloud -p)."),
        "cloud-destroy": Command("clouds", "Destroy cloud nodes by name (salt-cloud -d)."),
        "cloud-action": Command("clouds", "Run a driver action on nodes (salt-cloud -a)."),
        "cloud-function": Command("clouds", "Run a driver function of a provider (salt-cloud -f)."),
        "cloud-map": Command("clouds", "Create the nodes of a map file (salt-cloud -m)."),
        "cloud-images": Command(
            "clouds",
            "List the images of a cloud provider (salt-cloud --list-images)."),
        "cloud-sizes": Command(
            "clouds",
            "List the sizes of a cloud provider (salt-cloud --list-sizes)."),
        "cloud-locations": Command(
            "clouds",
            "List the locations of a cloud provider (salt-cloud --list-locations)."),
    }),
    ("Pillar (agents' data)", {
        "pillar-show": Command(
            "pillar",
            "Show an agent's compiled pillar (salt AGENT pillar.items)."),
        "pillar-top": Command(
            "pillar",
            "Show which pillar top-file targets select an agent, and their SLS files."),
    }),
    ("The local engine (what stack commands talk to without --url) and the web console", {
        "engine-status": Command(
            "local_engine",
            "List the local engines stackctl started for you."),
        "engine-stop": Command(
            "local_engine",
            "Stop the local engine of this configuration (running actions end FAILED after [api] "
            "graceful_shutdown_timeout)."),
        "console": Command(
            "console",
            "Serve the web console for you on 127.0.0.1 and print a one-time login link."),
    }),
))

#: command -> the module that registers it
COMMAND_MODULES: dict[str, str] = {name: entry.module for name, entry in TABLE.commands.items()}
