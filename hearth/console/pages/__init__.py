"""The console's pages, one module per family; :data:`PAGES` is the table of them all."""

from __future__ import annotations

from hearth.console.app import Page
from hearth.console.pages import (
    agents,
    clouds,
    jobs,
    launch,
    login,
    stack,
    stack_actions,
    stacks,
)

STACK = "/stacks/{stack_name}/{stack_id}"

PAGES: tuple[Page, ...] = (
    Page("", get=stacks.home),
    Page("/login", get=login.show, post=login.log_in, public=True),
    Page("/logout", post=login.log_out),
    Page("/stacks", get=stacks.index),
    Page("/stacks/{stack_name}", get=stack.find),
    Page(STACK, get=stack.show),
    Page(f"{STACK}/resources", get=stack.resources),
    Page(f"{STACK}/stream", get=stack.stream),
    Page(f"{STACK}/template", get=stack.template),
    Page(f"{STACK}/update", get=stack_actions.update_form, post=stack_actions.update),
    Page(f"{STACK}/{{verb}}", get=stack_actions.confirm, post=stack_actions.perform),
    Page("/launch", get=launch.upload_form, post=launch.upload),
    Page("/launch/{draft}", get=launch.parameters_form, post=launch.launch),
    Page("/agents", get=agents.index),
    Page("/agents/{agent_id}", get=agents.show),
    Page("/keys", get=agents.keys),
    Page("/keys/{verb}", get=agents.confirm_key, post=agents.key_action),
    Page("/clouds", get=clouds.index),
    Page("/jobs", get=jobs.index, post=jobs.run),
    Page("/jobs/{jid}", get=jobs.show),
    Page("/jobs/{jid}/stream", get=jobs.stream),
)
