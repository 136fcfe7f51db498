"""Templates of 1000 OS::Heat::None and the check that stackctl printed every state change.

Shared by the scale tests of the embedded and the HTTP paths.
"""

from __future__ import annotations

from pathlib import Path

from tests.functional.stackctl_process import run

SIZE = 1000
#: seconds one 1000-resource action may take on a busy 2-core machine
ACTION_TIMEOUT = 300


def none_template(shape: str, count: int = SIZE, renamed_from: int | None = None) -> str:
    """Return ``count`` OS::Heat::None as a ``chain`` or a ``fanout`` (under a root).

    ``renamed_from``: resources from that index on get new names, so an
    update to this template deletes the old ones and creates the new ones.
    """
    def name(index: int) -> str:
        return f"n{index}" if renamed_from is not None and index >= renamed_from else f"r{index}"
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(count):
        if shape == "chain":
            needs = f", depends_on: {name(index - 1)}" if index else ""
        else:
            needs = ", depends_on: root" if index else ""
        lines.append(f"  {'root' if shape == 'fanout' and not index else name(index)}: "
                     f"{{type: OS::Heat::None{needs}}}")
    return "\n".join(lines) + "\n"


def write_templates(directory: Path, shape: str) -> tuple[str, str]:
    """Write the create and the update template of ``shape``; return their paths."""
    first, second = directory / f"{shape}.yaml", directory / f"{shape}-update.yaml"
    first.write_text(none_template(shape))
    second.write_text(none_template(shape, renamed_from=SIZE // 2))
    return str(first), str(second)


def stackctl(home: Path, *args: str, url: str | None = None) -> str:
    """Run stackctl (over ``url`` when given) to success; return its stdout."""
    prefix = ("--url", url) if url else ()
    result = run(home, *prefix, *args, timeout=ACTION_TIMEOUT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""
    return result.stdout


def assert_printed_every_event(home: Path, stack_id: str, printed: str, stack_name: str,
                               final_status: str, state_changes: int,
                               url: str | None = None) -> None:
    """The action printed each of its events once, in order, then the stack's final state.

    The lines are compared with the stack's event log (``event-list``) from
    the action's first event on; ``state_changes`` is how many there are.
    """
    lines = printed.splitlines()
    assert lines[-1] == f"Stack {stack_name} {final_status}"
    progress = lines[:-1]
    assert len(progress) == state_changes
    assert len(set(progress)) == len(progress)
    log = stackctl(home, "event-list", stack_id, url=url).splitlines()
    start = log.index(progress[0])
    assert log[start:] == progress
    assert progress[-1].split("]: ")[1].startswith(final_status)
