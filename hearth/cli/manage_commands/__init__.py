"""``hearth-manage``'s commands: each module defines ``register(subparsers)``.

:data:`TABLE` names each command's module and its one-line summary;
hearth-manage imports only the module of the command it runs.
"""

from hearth.cli.command_table import Command, CommandTable

#: Every hearth-manage command, in the order ``--help`` lists them.
TABLE = CommandTable("hearth.cli.manage_commands", (
    ("commands", {
        "db-sync": Command(
            "db", "Create or upgrade the database schema ([database] connection)."),
        "db-version": Command("db", "Show the database schema revision."),
        "token-create": Command(
            "tokens", "Create an API token for a project (prints the token once)."),
        "token-list": Command(
            "tokens", "List API tokens (ids and hash prefixes, never secrets)."),
        "token-revoke": Command("tokens", "Revoke an API token."),
    }),
))
