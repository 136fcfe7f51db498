"""Hearth's configuration options, each declared once, with help text.

The options are data: one list per section.  ``list_opts`` feeds
oslo-config-generator (``etc/hearth/hearth.conf.sample`` is generated from
it and a test checks the sample is current).  ``load`` parses the
configuration files in Hearth's search order.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence

from oslo_config import cfg

from hearth.common.paths import default_config_files, hearth_home

CONF = cfg.CONF


DEFAULT_OPTS = [
    cfg.ListOpt("plugin_dirs",
                default=["/usr/lib64/hearth", "/usr/lib/hearth", "$state_path/plugins"],
                help="Directories searched for resource plug-in modules (each module "
                     "defines resource_mapping()). A 'tests' folder inside is never loaded."),
    cfg.StrOpt("state_path", default=hearth_home(), sample_default="~/.local/share/hearth",
               help="Where the embedded state lives (database, plug-ins, caches). "
                    "Defaults to $HEARTH_HOME, else ~/.local/share/hearth."),
    cfg.ListOpt("module_dirs", default=[],
                help="Extra directories searched for execution modules, after the built-in ones."),
    cfg.ListOpt("cloud_dirs", default=[],
                help="Extra directories searched for cloud driver modules, after the built-in "
                     "ones (hearth/clouds/drivers)."),
    cfg.StrOpt("extension_modules", default="$state_path/extmods",
               help="Root of the extension module directories, as Salt's: ext_pillar "
                    "modules are loaded from its 'pillar' subdirectory, after the "
                    "built-in ones (hearth/ext_pillar)."),
    cfg.BoolOpt("enable_zip_modules", default=False,
                help="Load execution modules packaged as zip archives found in module_dirs."),
    cfg.DictOpt("module_opts", default={},
                help="Per-module options handed to execution modules in __opts__, as "
                     "'module.option:value' pairs (e.g. 'cmd.shell:/bin/sh'). They always "
                     "win over a module's own __opts__ defaults."),
    cfg.StrOpt("minion_id", default=None, sample_default="<hostname>",
               help="The id of this host in job returns and the 'id' grain. "
                    "Default: the host name."),
    cfg.IntOpt("max_template_size", default=524288, min=1,
               help="Largest template accepted, in bytes."),
    cfg.IntOpt("max_json_body_size", default=1048576, min=1,
               help="Largest JSON request body accepted by the API, in bytes."),
    cfg.IntOpt("max_resources_per_stack", default=1000,
               help="Most resources in one stack tree; -1 means no limit."),
    cfg.IntOpt("max_stacks_per_tenant", default=512,
               help="Most stacks one project may own; -1 means no limit."),
    cfg.IntOpt("max_nested_stack_depth", default=5, min=1,
               help="Deepest nesting of provider templates and nested stacks."),
    cfg.IntOpt("max_events_per_stack", default=1000, min=0,
               help="Events kept per stack; older ones are purged in batches. 0 keeps all."),
    cfg.IntOpt("event_purge_batch_size", default=200, min=1,
               help="How many of the oldest events are purged at once."),
    cfg.IntOpt("stack_action_timeout", default=3600, min=1,
               help="Timeout in seconds for a stack action when the stack has no timeout_mins."),
    cfg.IntOpt("max_concurrent_resources", default=0, min=0,
               help="Most resources acted on at once in one stack; 0 means no limit."),
    cfg.DictOpt("max_concurrent_per_type", default={},
                help="Per resource type limits, e.g. 'Hearth::Cloud::Server:4'."),
    cfg.FloatOpt("error_wait_time", default=240.0, min=0,
                 help="Grace period in seconds for running resources to finish after "
                      "another resource of the stack failed."),
    cfg.IntOpt("action_retry_limit", default=5, min=0,
               help="Times a resource action that failed with a retryable error is retried."),
    cfg.FloatOpt("engine_life_check_timeout", default=2.0, min=0.1,
                 help="Seconds after which an engine that missed its heartbeat is presumed dead."),
    cfg.FloatOpt("engine_heartbeat_interval", default=0.5, min=0.05,
                 help="Seconds between an engine's heartbeats while it holds stack locks."),
    cfg.StrOpt("engine_takeover", default="resume", choices=[
                   ("resume", "A live engine takes the stack's lock and finishes the action "
                              "from the stored states: resources complete stay, resources in "
                              "progress are continued through their plug-in (one that "
                              "cannot continue fails with the reason)."),
                   ("fail", "The stack and its resources in progress are marked FAILED "
                            "('Engine went down during stack <ACTION>'), as Heat does; the "
                            "user then updates, rolls back or deletes it.")],
               help="What happens to a stack action whose engine stopped beating (no "
                    "heartbeat for three engine_life_check_timeout, or one at a starting "
                    "engine's start). Exactly one live engine takes each such stack."),
    cfg.IntOpt("gc_young_threshold", default=20000, min=0,
               help="Allocations between two young-generation garbage collections in an "
                    "engine process (Python's default is 700). An engine holds many "
                    "long-lived objects per stack, and each collection of the older "
                    "generations walks them all; collecting less often keeps that cost "
                    "off the engine's hot path. 0 keeps Python's setting."),
    cfg.IntOpt("max_snapshots_per_stack", default=32,
               help="Most snapshots kept per stack (admins are not held by it, as in "
                    "Heat); -1 means no limit."),
    cfg.BoolOpt("enable_stack_abandon", default=False,
                help="Allow stack abandon (the API's and stackctl's; Heat's default)."),
    cfg.BoolOpt("enable_stack_adopt", default=False,
                help="Allow stack adopt (the API's and stackctl's; Heat's default)."),
    cfg.FloatOpt("poll_interval_min", default=0.005, min=0.0,
                 help="First delay in seconds between two polls of a resource's check_X_complete."),
    cfg.FloatOpt("poll_interval_max", default=1.0, min=0.001,
                 help="Longest delay in seconds between two polls of check_X_complete."),
]

DATABASE_OPTS = [
    cfg.StrOpt("connection", secret=True,
               help="SQLAlchemy URL of the database. Default: SQLite at $state_path/hearth.db."),
    cfg.BoolOpt("auto_migrate", default=True,
                help="Create and migrate the schema automatically on first use (embedded mode)."),
    cfg.FloatOpt("group_commit_delay", default=0.01, min=0.0, max=1.0,
                 help="Longest time (seconds) a finished resource's state change may wait "
                      "to be committed together with others. Nothing that depends on it "
                      "runs, and nothing is shown, before it is committed."),
]

YAQL_OPTS = [
    cfg.IntOpt("limit_iterators", default=200, min=1,
               help="Most elements a yaql expression may iterate over."),
    cfg.IntOpt("memory_quota", default=10000, min=1,
               help="Most memory, in bytes, a yaql expression's results may take."),
]

API_OPTS = [
    cfg.HostAddressOpt("bind_host", default="127.0.0.1", help="Address the API server listens on."),
    cfg.PortOpt("bind_port", default=8004, help="Port the API server listens on."),
    cfg.URIOpt("public_url", default=None, schemes=["http", "https"],
               sample_default="http://<bind_host>:<bind_port>",
               help="Base URL under which machines reach this API (no trailing /v1): "
                    "resource signal URLs, a wait condition handle's endpoint and curl_cli "
                    "start with it. Unset: the address hearth-api listens on, else "
                    "http://<bind_host>:<bind_port>."),
    cfg.IntOpt("workers", default=0, min=0,
               help="Unused: the API serves every request on green threads of one process."),
    cfg.FloatOpt("graceful_shutdown_timeout", default=30.0, min=0,
                 help="Seconds in-flight stack actions get to finish on SIGTERM before they "
                      "are marked FAILED."),
    cfg.StrOpt("publisher_acl_file", default=None,
               help="YAML file of Salt's publisher_acl per project: {project glob: [function "
                    "regex, or {target expression: [function regex, ...]}]}. POST "
                    "/v1/{project}/jobs publishes only what it allows; without it every "
                    "job request is refused (403). The same rules bind a project's stacks "
                    "(Hearth::Exec::Call on agents, Hearth::Pillar::Data: reading an agent's "
                    "pillar needs the right to run pillar.items on it)."),
    cfg.ListOpt("engine_host_projects", default=[],
                help="Projects (globs on the project id) whose stacks may run execution "
                     "modules on the API's own host, as the API's system user: a "
                     "Hearth::Exec::Call without target, a Hearth::Pillar::Data compiled "
                     "here when no master is configured. Empty (the default): none may; "
                     "granting it gives the project that user's shell. stackctl's local "
                     "engine always may (it is its user's own)."),
    cfg.BoolOpt("console", default=True,
                help="Serve the web console under /console (a project logs in with its API "
                     "token; docs/console.rst)."),
]

BUS_OPTS = [
    cfg.IntOpt("buffer_size", default=10000, min=1,
               help="Events held per subscriber before the oldest are dropped (and counted)."),
    cfg.StrOpt("publish_socket", default="$state_path/bus.sock",
               help="ZeroMQ IPC endpoint path on which a running engine publishes its events."),
]

JOBS_OPTS = [
    cfg.IntOpt("keep_jobs_hours", default=24, min=0,
               help="Hours a job's return is kept in the job cache; 0 keeps none."),
    cfg.BoolOpt("cache_local_calls", default=False,
                help="Also record 'stackctl call' returns in the job cache (Salt's cache_jobs)."),
]

PILLAR_OPTS = [
    cfg.MultiStrOpt("pillar_roots", default=["base=$state_path/pillar"],
                    help="Pillar environments and their directories, one 'ENV=DIR' per "
                         "line; repeat an environment to give it several directories "
                         "(searched in order). Each environment may hold a top.sls."),
    cfg.StrOpt("config_file", default="$state_path/pillar.yaml",
               help="A YAML file in the shape of Salt's master configuration, read by "
                    "whatever compiles pillar (hearth-master, stackctl --local): its "
                    "'ext_pillar' list (ordered one-key maps: a scalar, list or map "
                    "value picks the call shape), per-module options such as "
                    "'hearth_stack.project', and any of the other options of this "
                    "section under their Salt names, which then win over this file's. "
                    "A missing file means no ext_pillar."),
    cfg.BoolOpt("ext_pillar_first", default=False,
                help="Run the ext_pillars before the pillar SLS files; the files are "
                     "then rendered with that data in 'pillar' and win conflicts."),
    cfg.StrOpt("pillar_source_merging_strategy", default="smart",
               choices=("smart", "recurse", "aggregate", "overwrite", "none"),
               help="How pillar sources merge, as Salt's option of that name."),
    cfg.BoolOpt("pillar_merge_lists", default=False,
                help="With recurse merging, append a later source's list items to the "
                     "earlier list instead of replacing it."),
    cfg.BoolOpt("pillar_cache", default=False,
                help="Keep each agent's compiled pillar (per pillarenv) in memory for "
                     "pillar_cache_ttl seconds. Off by default: cached data outlives "
                     "changes to the sources until it expires or is refreshed."),
    cfg.IntOpt("pillar_cache_ttl", default=3600, min=0,
               help="Seconds a cached pillar stays valid."),
    cfg.BoolOpt("fail_on_errors", default=True,
                help="Make pillar consumers (pillar.get and friends, Hearth::Pillar::Data) "
                     "fail with the pillar's _errors instead of using partial data."),
    cfg.BoolOpt("mask_output", default=True,
                help="Show pillar values as ********** in stackctl pillar-show output "
                     "(Salt 3008's pillar masking); --unmask shows them."),
]

CLOUD_OPTS = [
    cfg.StrOpt("config_dir", default="$state_path/cloud",
               help="Directory of the cloud configuration, as Salt Cloud's: providers in "
                    "cloud.providers.d/*.conf, profiles in cloud.profiles.d/*.conf (or the "
                    "single files cloud.providers and cloud.profiles), global options such "
                    "as filter_events in the file 'cloud'."),
    cfg.FloatOpt("node_timeout", default=300.0, min=1,
                 help="Seconds a server resource waits for its node to run (and, for the "
                      "local driver, for its agent to answer) before it fails."),
]


#: The smallest [master]/[agent] max_message_size (a master announces its own to agents).
MIN_MESSAGE_SIZE = 65536

MASTER_OPTS = [
    cfg.HostAddressOpt("interface", default="0.0.0.0",
                       help="Address hearth-master listens on for agents and clients."),
    cfg.PortOpt("port", default=4510,
                help="Port of the master's job socket: jobs, returns and client requests "
                     "(CURVE; only accepted agent keys and the client key get in)."),
    cfg.PortOpt("auth_port", default=4511,
                help="Port on which agents present their key and id to be accepted."),
    cfg.StrOpt("pki_dir", default="$state_path/pki/master",
               help="The master's keys: master.key(_secret), client.key(_secret) and the "
                    "agent keys under accepted/, pending/, rejected/ and denied/."),
    cfg.BoolOpt("auto_accept", default=False,
                help="Accept every new agent key at once instead of keeping it pending."),
    cfg.IntOpt("keep_jobs_seconds", default=86400, min=0,
               help="Seconds a job and its returns stay in the job cache; 0 keeps none."),
    cfg.FloatOpt("timeout", default=5.0, min=0,
                 help="Seconds 'stackctl run' waits for returns by default (a wait, not a "
                      "kill: agents still running the job are waited for again)."),
    cfg.MultiStrOpt("nodegroups", default=[],
                    help="Named targets for -N, one 'NAME=COMPOUND EXPRESSION' per line, "
                         "e.g. 'web=web* and G@os:Debian'."),
    cfg.StrOpt("key_store", default="files", choices=("files", "database"),
               help="Where the master keeps agents' keys (accepted, pending, rejected, "
                    "denied, enrollment keys) and their recorded grains: 'files', one file "
                    "per agent id under pki_dir as Salt keeps them; 'database', the server "
                    "database ([database] connection), so that several masters using it "
                    "share them (a key accepted on one is accepted on all, within "
                    "heartbeat_interval). See the operations guide, 'Two masters'."),
    cfg.FloatOpt("heartbeat_interval", default=1.0, min=0.1,
                 help="Seconds between two heartbeats this master counts in the database, "
                      "where the masters sharing it watch each other; each also checks "
                      "then for key changes made on another master (key_store = database)."),
    cfg.FloatOpt("peer_timeout", default=5.0, min=0.5,
                 help="Seconds without a heartbeat after which another master sharing the "
                      "database counts as stopped: this master then takes over the jobs it "
                      "left unfinished (sends them to the agents that owe a return; an agent "
                      "runs a job once) and stores the returns its agents bring after failing "
                      "over. A master stopped by SIGTERM is taken over at once."),
    cfg.BoolOpt("trust_agent_grains", default=False,
                help="Let the grains an agent reports about itself count where they decide "
                     "access: pillar top-file targets, file_tree nodegroups and the grains "
                     "pillar files see, and publisher_acl rule targets. Off (the default): "
                     "only what the master holds counts there (the agent id, nodegroups, "
                     "grains recorded by the cloud profile that made the machine or by "
                     "'stackctl key-accept --grain'), because any agent can claim any "
                     "grain and would get the secrets meant for another role. Job targets "
                     "(-G) match the reported grains, recorded ones over them, as in Salt."),
    cfg.ListOpt("module_dirs", default=[],
                help="Directories of execution modules (.py files, packages, .zip archives) "
                     "the agents fetch with saltutil.sync_modules / sync_all."),
    cfg.IntOpt("worker_threads", default=4, min=1,
               help="Threads that compile pillar data and serve module files."),
    cfg.FloatOpt("agent_timeout", default=4.0, min=0.5,
                 help="Seconds without a message from an agent after which it counts as "
                      "not connected (agents ping every [agent] ping_interval)."),
    cfg.IntOpt("ping_rate", default=1000, min=1,
               help="Most pings per second the master asks of its agents: with more "
                    "agents connected than this, it tells them to ping every "
                    "connected / ping_rate seconds (never more often than their own "
                    "[agent] ping_interval), and waits for as many times longer before "
                    "counting one as gone (agent_timeout scaled alike), so a large fleet's "
                    "keep-alives cost the master the same as a small one's."),
    cfg.FloatOpt("reconnect_grace", default=30.0, min=0,
                 help="Seconds after the master starts during which a job waits for "
                      "accepted agents that have not reconnected yet, instead of reporting "
                      "them 'Not connected' (after a restart, agents come back over their "
                      "recon_* spread). The wait ends sooner once agent_timeout seconds pass "
                      "with no agent coming back."),
    cfg.ListOpt("masters", default=[],
                help="Where this host's clients (stackctl, hearth-api, the engine's "
                     "Hearth::Exec::Call resources) reach hearth-master when several masters "
                     "share one database: HOST or HOST:PORT items (PORT defaults to port "
                     "above), as an agent's [agent] master list with master_type = failover. "
                     "A client uses the master that serves the most agents among those that "
                     "answer (the first listed on a tie), and when that master dies while a "
                     "job runs it follows the job on the other one (the job cache is shared) "
                     "until every return is in; a job is never published twice. The masters "
                     "must share the client key pair (client.key, client.key_secret) as they "
                     "share master.key. Empty (the default): the master at interface and port "
                     "above. $HEARTH_MASTER (the same list) overrides it."),
    cfg.FloatOpt("client_timeout", default=10.0, min=0.1,
                 help="Seconds a client (stackctl, hearth-api) waits for the master to "
                      "answer one request."),
    cfg.IntOpt("max_message_size", default=32 * 1024 * 1024, min=MIN_MESSAGE_SIZE,
               help="Largest message, in bytes, the master reads from an agent or a client "
                    "(a job's return, grains, an event). ZeroMQ disconnects a peer that sends "
                    "a larger one before reading it; an agent whose return is larger sends "
                    "an error return instead. The auth port reads at most 4 KiB."),
]

AGENT_OPTS = [
    cfg.StrOpt("id", default=None, sample_default="<hostname>",
               help="The agent's id (Salt's minion id). Default: [DEFAULT] minion_id, "
                    "else the host name."),
    cfg.ListOpt("master", default=["127.0.0.1"],
                help="Address of hearth-master: HOST, HOST:PORT or HOST:PORT:AUTH_PORT (an "
                     "IPv6 address in brackets when ports follow: [::1]:4510); ports not "
                     "given are master_port and master_auth_port. With master_type = "
                     "failover, several masters separated by commas, tried in this order."),
    cfg.PortOpt("master_port", default=4510, help="The master's [master] port."),
    cfg.PortOpt("master_auth_port", default=4511, help="The master's [master] auth_port."),
    cfg.StrOpt("master_type", default="str", choices=("str", "failover"),
               help="'str': one master. 'failover' (Salt's): several masters in 'master'; "
                    "the agent serves the first that accepts it and moves to the next when "
                    "its master stays unreachable master_alive_interval seconds (the "
                    "masters share keys, jobs and returns through one database: see the "
                    "operations guide). Salt's hot multi-master, several masters at once, "
                    "is not supported."),
    cfg.FloatOpt("master_alive_interval", default=0.0, min=0,
                 help="With master_type = failover: seconds the agent's master may stay "
                      "unreachable (no live connection and nothing heard) before the agent "
                      "moves to the next master. Salt checks the master every this many "
                      "seconds; Hearth watches the connection all the time, so this is the "
                      "longest wait. 0: master_alive_timeout."),
    cfg.BoolOpt("master_failback", default=False,
                help="With master_type = failover: go back to the first master of the list "
                     "once it answers again (checked every master_failback_interval while "
                     "the agent is on another master, and switched when the agent runs no "
                     "job and keeps no return, so that each job's returns go to the master "
                     "that sent it)."),
    cfg.FloatOpt("master_failback_interval", default=0.0, min=0,
                 help="Seconds between two checks of the first master while on another one "
                      "(master_failback). 0: master_alive_interval."),
    cfg.BoolOpt("random_master", default=False, deprecated_name="master_shuffle",
                help="With several masters: shuffle their order once at start, so that a "
                     "fleet spreads over them (with master_failback the first master stays "
                     "first). Salt's option; master_shuffle is its old name."),
    cfg.FloatOpt("retry_dns", default=30.0, min=0,
                 help="Seconds to wait before resolving the master's host name again when "
                      "it does not resolve; 0 stops the agent at once. With failover, a "
                      "master whose name does not resolve is skipped at once for the next "
                      "one, and this is the wait once none resolves."),
    cfg.IntOpt("retry_dns_count", default=None, min=0,
               help="How many times to resolve the master's host name again (see retry_dns) "
                    "before the agent stops; unset: forever."),
    cfg.IntOpt("minion_jid_queue_hwm", default=100, min=1,
               help="How many job ids the agent remembers having run, so that a job it is "
                    "sent twice (by a master that took over another's jobs, after a "
                    "failover) runs once; its kept return is sent again instead."),
    cfg.StrOpt("master_finger", default=None,
               help="Fingerprint of the master's public key ('stackctl key-finger'). When "
                    "set, an agent refuses a master whose key does not match."),
    cfg.StrOpt("master_pubkey", default=None,
               help="The master's public key (Z85), when pre-seeded. Otherwise the key the "
                    "master presents first is cached under root_dir/pki and pinned."),
    cfg.StrOpt("enrollment_key_file", default=None,
               help="A single-use enrollment key (a CURVE secret certificate) the master "
                    "issued for this agent, as a cloud-init deploy writes it. At its first "
                    "contact the agent proves it and has its own key accepted; the file is "
                    "then deleted (the master refuses the key once used or expired)."),
    cfg.StrOpt("root_dir", default="$state_path/agent",
               help="The agent's own directory: pki/ (its key pair), returns not yet "
                    "acknowledged, the running-job table, synced modules, static grains."),
    cfg.FloatOpt("acceptance_wait_time", default=2.0, min=0.05,
                 help="Seconds between two attempts while the agent's key is pending."),
    cfg.FloatOpt("random_startup_delay", default=0.0, min=0,
                 help="Seconds: at its start the agent waits a random time up to this before "
                      "its first contact with the master (Salt's random_startup_delay), so "
                      "machines that boot together do not all knock at once."),
    cfg.IntOpt("recon_default", default=100, min=1,
               help="Milliseconds: ZeroMQ's interval between two attempts to reach the "
                    "master again after the connection dropped (a master restart). See "
                    "recon_randomize."),
    cfg.IntOpt("recon_max", default=2000, min=0,
               help="Milliseconds: the longest interval between two reconnection attempts "
                    "(ZeroMQ doubles the interval up to it), and the span of recon_randomize."),
    cfg.BoolOpt("recon_randomize", default=True,
                help="Pick this agent's reconnect interval once, at random between "
                     "recon_default and recon_default + recon_max, so that after a master "
                     "restart a fleet's reconnections are spread over that span instead of "
                     "arriving together (Salt's recon_randomize)."),
    cfg.FloatOpt("random_reauth_delay", default=3.0, min=0,
                 help="Seconds: an agent that lost its master (silent master_alive_timeout "
                      "seconds) waits a random time up to this before authenticating again "
                      "(Salt's random_reauth_delay), so a fleet does not authenticate at "
                      "once with a master that is busy or just back."),
    cfg.FloatOpt("reconnect_delay", default=0.2, min=0.01,
                 help="First delay before reconnecting to a master that went away; "
                      "doubled at each failure up to reconnect_delay_max."),
    cfg.FloatOpt("reconnect_delay_max", default=5.0, min=0.01,
                 help="Longest delay between two reconnection attempts."),
    cfg.FloatOpt("ping_interval", default=1.0, min=0.05,
                 help="Seconds between two pings to the master (liveness, running jobs)."),
    cfg.FloatOpt("master_alive_timeout", default=4.0, min=0.1,
                 help="Seconds without an answer after which the master counts as gone."),
    cfg.FloatOpt("return_retry_interval", default=5.0, min=0.1,
                 help="Seconds before a return the master has not acknowledged is resent."),
    cfg.IntOpt("max_message_size", default=32 * 1024 * 1024, min=MIN_MESSAGE_SIZE,
               help="Largest message, in bytes, the agent reads from its master (a job, "
                    "pillar data, a module file). ZeroMQ drops the connection on a larger "
                    "one before reading it, and the agent reconnects."),
]

CLI_OPTS = [
    cfg.FloatOpt("local_engine_idle_timeout", default=600.0, min=1.0,
                 help="Seconds the local engine that stackctl starts (without --url) keeps "
                      "running with no request and no stack action, before it exits. The "
                      "next stackctl command starts it again."),
]


_SECTIONS: dict[str | None, list[cfg.Opt]] = {
    None: DEFAULT_OPTS,
    "database": DATABASE_OPTS,
    "yaql": YAQL_OPTS,
    "pillar": PILLAR_OPTS,
    "api": API_OPTS,
    "bus": BUS_OPTS,
    "jobs": JOBS_OPTS,
    "master": MASTER_OPTS,
    "agent": AGENT_OPTS,
    "cloud": CLOUD_OPTS,
    "cli": CLI_OPTS,
}


#: The options that name files or directories, by section: a relative path given in a
#: configuration file is taken from that file's directory (not the working directory of
#: whoever reads it), so that a file means the same to stackctl, the local engine and the
#: daemons wherever they start.  ``pillar_roots`` items are ``ENV=PATH``.
PATH_OPTIONS: dict[str | None, tuple[str, ...]] = {
    None: ("state_path", "plugin_dirs", "module_dirs", "cloud_dirs", "extension_modules"),
    "api": ("publisher_acl_file",),
    "pillar": ("pillar_roots", "config_file"),
    "cloud": ("config_dir",),
    "master": ("pki_dir", "module_dirs"),
    "agent": ("enrollment_key_file", "root_dir"),
}
#: Those of them whose values are ``ENV=PATH``.
KEYED_PATH_OPTIONS = frozenset({"pillar_roots"})


#: The configuration objects whose options are registered, by id (an entry goes with its object).
_REGISTERED: weakref.WeakValueDictionary[int, cfg.ConfigOpts] = weakref.WeakValueDictionary()


def register_opts(conf: cfg.ConfigOpts = CONF) -> None:
    """Register every option of every section (idempotent).

    Once per configuration object: oslo.config checks every option again on
    each registration (0.4 ms), and readers call this before each read.
    """
    if _REGISTERED.get(id(conf)) is conf:
        return
    for group, opts in _SECTIONS.items():
        conf.register_opts(opts, group=group)
    _REGISTERED[id(conf)] = conf


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    """Return (section, options) pairs for oslo-config-generator."""
    return [("DEFAULT" if group is None else group, list(opts))
            for group, opts in _SECTIONS.items()]


def load(argv: Sequence[str] = (), conf: cfg.ConfigOpts = CONF,
         config_files: Sequence[str] | None = None) -> cfg.ConfigOpts:
    """Register the options and parse the configuration files.

    ``config_files`` (from ``--config-file``) replace the search order when
    given.  ``argv`` is passed to oslo.config for its own flags.
    """
    register_opts(conf)
    # $HEARTH_HOME is read at load time, not import time, so that tests and
    # embedding programs can point each run at its own state directory.
    conf.set_default("state_path", hearth_home())
    files = list(config_files) if config_files else default_config_files()
    _clear_resolved_paths(conf)
    conf(list(argv), project="hearth", default_config_files=files,
         validate_default_values=True, use_env=False)
    _resolve_relative_paths(conf)
    return conf


#: The attribute of a ConfigOpts holding {(group, option): file} of the relative paths
#: taken from a file's directory.
_RESOLVED = "_hearth_resolved_paths"


def _clear_resolved_paths(conf: cfg.ConfigOpts) -> None:
    """Forget the paths resolved by the previous load (the files may have changed)."""
    for group, name in getattr(conf, _RESOLVED, ()):
        conf.clear_override(name, group)
    setattr(conf, _RESOLVED, {})


def _from_file(value: str, directory: str, keyed: bool) -> str:
    """Return ``value`` (a path; with ``keyed``, ``ENV=PATH``) taken from ``directory``."""
    env, sep, path = value.partition("=") if keyed and "=" in value else ("", "", value)
    if not path or os.path.isabs(path) or path.startswith(("~", "$")):
        return value
    return f"{env}{sep}{os.path.normpath(os.path.join(directory, path))}"


def _resolve_relative_paths(conf: cfg.ConfigOpts) -> None:
    """Take the relative paths of :data:`PATH_OPTIONS` from the file that gave them."""
    resolved = getattr(conf, _RESOLVED)
    for group, names in PATH_OPTIONS.items():
        for name in names:
            location = conf.get_location(name, group)
            if location is None or location.location != cfg.Locations.user or \
                    not location.detail or not os.path.isfile(location.detail):
                continue
            directory = os.path.dirname(os.path.abspath(location.detail))
            value = conf[group][name] if group else conf[name]
            if value is None:
                continue
            keyed = name in KEYED_PATH_OPTIONS
            new = [_from_file(item, directory, keyed) for item in value] \
                if isinstance(value, list) else _from_file(value, directory, keyed)
            if new != value:
                conf.set_override(name, new, group)
                resolved[(group, name)] = location.detail


def origin(name: str, group: str | None = None, conf: cfg.ConfigOpts = CONF) -> str:
    """Return where an option's value comes from, for messages: the file, or the default."""
    option = f"[{group or 'DEFAULT'}] {name}"
    resolved = getattr(conf, _RESOLVED, {}).get((group, name))
    if resolved:
        return f"{option} in {resolved}"
    location = conf.get_location(name, group)
    if location is not None and location.location == cfg.Locations.user and location.detail:
        return f"{option} in {location.detail}"
    return f"{option}, by default"


def poll_limits(conf: cfg.ConfigOpts = CONF) -> tuple[float, float]:
    """Return ``(poll_interval_min, poll_interval_max)``: the bounds of a poll's delay.

    The scheduler backs off between them (:mod:`hearth.engine.scheduler`);
    a waiting plug-in asks to be polled again no later than the maximum.
    """
    register_opts(conf)
    return conf.poll_interval_min, conf.poll_interval_max


def database_url(conf: cfg.ConfigOpts = CONF) -> str:
    """Return the SQLAlchemy URL: ``[database] connection`` or SQLite in the state path."""
    register_opts(conf)
    conf.set_default("state_path", hearth_home())
    if conf.database.connection:
        return conf.database.connection
    return "sqlite:///" + os.path.join(conf.state_path, "hearth.db")
