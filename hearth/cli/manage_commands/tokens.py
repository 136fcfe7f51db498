"""``hearth-manage token-create|token-list|token-revoke``: API tokens.

The secret is printed once by ``token-create``; listings show ids and hash
prefixes only.
"""

from __future__ import annotations

import argparse

from hearth.cli import command, output
from hearth.common import config
from hearth.db import tokens
from hearth.db.timeutils import format_time

LIST_COLUMNS = ("id", "hash_prefix", "project_id", "user", "roles", "description",
                "created_at", "expires_at", "revoked_at")


def _row(info: object) -> dict[str, object]:
    row = {column: getattr(info, column) for column in LIST_COLUMNS}
    row["roles"] = ",".join(row["roles"])
    for column in ("created_at", "expires_at", "revoked_at"):
        row[column] = format_time(row[column])
    return row


def do_token_create(args: argparse.Namespace) -> int:
    """Create a token and print its secret (shown only this once)."""
    config.load(config_files=getattr(args, "config_file", None))
    secret, info = tokens.create_token(args.project, user=args.user, roles=args.role or (),
                                       description=args.description,
                                       expires_hours=args.expires_hours)
    if args.format == "table":
        print(f"Token id: {info.id}\nProject: {info.project_id}\n"
              f"Roles: {','.join(info.roles) or '-'}\n"
              f"Token (shown only once): {secret}")
    else:
        print(secret)
    return 0


def do_token_list(args: argparse.Namespace) -> int:
    """List tokens without their secrets."""
    config.load(config_files=getattr(args, "config_file", None))
    rows = [_row(info) for info in tokens.list_tokens(project_id=args.project)]
    output.listing(rows, LIST_COLUMNS, args.format)
    return 0


def do_token_revoke(args: argparse.Namespace) -> int:
    """Revoke a token by id."""
    config.load(config_files=getattr(args, "config_file", None))
    info = tokens.revoke_token(args.id)
    print(f"Token {info.id} revoked.")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the token commands."""
    parser = command.add_command(
        subparsers, "token-create", do_token_create,
        formats=("table", "value"))
    parser.add_argument("--project", required=True, help="Project the token acts in.")
    parser.add_argument("--user", default="admin", help="User name recorded on the token.")
    parser.add_argument("--role", action="append", metavar="ROLE",
                        help="Role of the token (repeatable); 'admin' may list all projects.")
    parser.add_argument("--description", default=None, help="Free text shown in token-list.")
    parser.add_argument("--expires-hours", type=float, default=None, metavar="H",
                        help="Hours until the token expires (default: never).")
    parser = command.add_command(subparsers, "token-list", do_token_list,
                                 formats=output.ALL_FORMATS)
    parser.add_argument("--project", default=None, help="Only this project's tokens.")
    parser = command.add_command(subparsers, "token-revoke", do_token_revoke)
    parser.add_argument("id", help="Id of the token (see token-list).")
