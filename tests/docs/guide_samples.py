"""Find the code samples of the user guide and run them, page by page, as a reader does.

Every sample in ``docs/`` is a ``.. code-block:: LANGUAGE`` (a bare ``::``
literal block is refused, so that no sample escapes) or a
``.. literalinclude::`` of a file under ``docs/examples/``.  A page runs as
a reader with Hearth installed runs it, and nothing more: in a new, empty
directory, with a clean environment (Hearth's programs on ``PATH``, a new
``HOME``, no ``HEARTH_*`` variable), in one shell whose directory and
variables carry from one command to the next, doing only what the page
shows.  A page that needs set-up shows it.  Samples run in page order:

``console``
    Each ``$ command`` line (continued by a trailing ``\\``) runs in that
    shell.  The lines after it are expected output: each must match a line
    of stdout+stderr, in order (``...`` inside a line matches anything; a
    line that is only ``...`` marks elided output).  A command must exit 0
    unless its expected output shows an ``ERROR:`` line.  With ``:class:
    dry-run``, only ``make TARGET`` lines are allowed and run as ``make -n
    TARGET`` in the repository (installation steps).
``python``
    With ``:caption: PATH``: the file the reader saves at PATH (written,
    and compiled).  Without: executed, one namespace per page.
``yaml``, ``json``, ``ini`` and included files
    Parsed (a ``hearth.conf`` may only name Hearth's own options); with
    ``:caption: PATH`` also written there, as the reader saves a file the
    page shows (an included file as the page shows it: its ``:lines:``).
``text``
    Not run: diagrams and output shown on their own.

Two things differ from a reader's terminal, and only so that pages run
beside each other: the fixed ports a page names (:data:`FIXED_PORTS`) are
replaced by free ones in its samples, and the local engines of the test
process's runtime directory are used (``HEARTH_RUNTIME_DIR``).
"""

from __future__ import annotations

import configparser
import dataclasses
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
BIN = Path(sys.executable).parent
DIRECTIVE = re.compile(r"^(\s*)\.\. (code-block|literalinclude)::\s*(\S+)\s*$")
OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")
LANGUAGES = ("console", "python", "yaml", "json", "ini", "text")
COMMAND_TIMEOUT = 120


@dataclasses.dataclass
class Sample:
    """One sample: where it is, its language, options and text."""

    page: str
    line: int
    language: str
    text: str
    options: dict[str, str]

    @property
    def where(self) -> str:
        """Return ``page:line`` for messages."""
        return f"{self.page}:{self.line}"


def guide_pages() -> list[Path]:
    """Return the guide's pages (generated reference pages excluded)."""
    return sorted(path for path in DOCS.rglob("*.rst")
                  if "_build" not in path.parts and "examples" not in path.parts
                  and "resource_types" not in path.parts)


def _block(lines: list[str], start: int, indent: int) -> tuple[dict[str, str], str, int]:
    """Return (options, dedented content, next line index) of the directive at ``start``."""
    options, index = {}, start + 1
    while index < len(lines) and OPTION.match(lines[index]):
        key, value = OPTION.match(lines[index]).groups()
        options[key] = value
        index += 1
    content = []
    while index < len(lines):
        line = lines[index]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        content.append(line)
        index += 1
    while content and not content[-1].strip():
        content.pop()
    body = list(content)
    while body and not body[0].strip():
        body.pop(0)
    margin = min((len(line) - len(line.lstrip()) for line in body if line.strip()), default=0)
    return options, "\n".join(line[margin:] for line in body), index


def literal_blocks(text: str) -> list[int]:
    """Return the line numbers of bare ``::`` literal blocks (refused in the guide)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.rstrip()
        if stripped.endswith("::") and not stripped.lstrip().startswith(".."):
            found.append(number)
    return found


def extract(path: Path) -> list[Sample]:
    """Return the samples of one page, in order."""
    lines = path.read_text().splitlines()
    path = path.resolve()
    page = str(path.relative_to(DOCS if DOCS in path.parents else ROOT))
    samples, index = [], 0
    while index < len(lines):
        match = DIRECTIVE.match(lines[index])
        if not match:
            index += 1
            continue
        indent, kind, argument = len(match.group(1)), match.group(2), match.group(3)
        options, content, after = _block(lines, index, indent)
        if kind == "literalinclude":
            included = (path.parent / argument).resolve()
            language = options.get("language", "text")
            samples.append(Sample(page, index + 1, f"include-{language}",
                                  included.read_text(), {**options, "file": str(included)}))
        else:
            samples.append(Sample(page, index + 1, argument, content, options))
        index = after
    return samples


# --- running -------------------------------------------------------------------

#: Ports the pages name: each page gets free ones in their place.
FIXED_PORTS = (4520, 4521, 4620, 4621, 4640, 4641, 4660, 4661, 8004)
#: Programs a page may leave running (stopped when its test ends).
DAEMONS = ("hearth-master", "hearth-agent", "hearth-api", "hearth.api.local_server",
           "hearth.agent")


def clean_environment(home: Path) -> dict[str, str]:
    """Return a new user's environment: Hearth's programs on PATH, ``home`` as HOME.

    Temporary files (``mktemp``) go under ``home`` too, so that the test's
    directory holds everything a page made.
    """
    temporary = home / "tmp"
    temporary.mkdir(parents=True, exist_ok=True)
    env = {"PATH": f"{BIN}{os.pathsep}/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin",
           "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb", "SHELL": "/bin/bash",
           "USER": os.environ.get("USER") or "reader", "TMPDIR": str(temporary)}
    if os.environ.get("HEARTH_RUNTIME_DIR"):   # the test process's own engines
        env["HEARTH_RUNTIME_DIR"] = os.environ["HEARTH_RUNTIME_DIR"]
    return env


#: where a page's ports are drawn from: below Linux's ephemeral range (32768-60999), which the
#: kernel hands to every port-0 listener and outgoing connection of the tests running beside
#: the page; a port drawn from that range could be taken before the page's daemon binds it
PAGE_PORT_RANGE = (20000, 32000)


def free_ports(count: int) -> list[int]:
    """Return ``count`` ports free on 127.0.0.1 now, in consecutive pairs."""
    found: list[int] = []
    while len(found) < count:
        port = random.randrange(*PAGE_PORT_RANGE, 2)
        if port in found:
            continue
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        found += [port, port + 1]
    return found[:count]


class Shell:
    """A reader's terminal: one bash whose directory and variables last between commands."""

    def __init__(self, directory: Path, env: dict[str, str], control: Path) -> None:
        self.control = control
        control.mkdir(parents=True, exist_ok=True)
        self.count = 0
        self.cwd = directory
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=directory, env=env,
            text=True, start_new_session=True)
        self._send("set -o pipefail\n")

    def _send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def run(self, command: str, timeout: float = COMMAND_TIMEOUT) -> tuple[int, str]:
        """Run ``command`` as typed at the prompt; return (exit status, stdout+stderr)."""
        self.count += 1
        out, done, cwd = (self.control / f"{self.count}.{name}" for name in ("out", "rc", "pwd"))
        self._send(f"{{ {command}\n}} >{out} 2>&1 </dev/null\n"
                   f"echo $? >{done}.tmp; pwd >{cwd}; mv {done}.tmp {done}\n")
        deadline = time.monotonic() + timeout
        while not done.exists():
            if self.process.poll() is not None:
                return 127, (out.read_text() if out.exists() else "") + \
                    "\n(the shell ended: the command ran exit)"
            if time.monotonic() > deadline:
                raise AssertionError(f"'$ {command}' did not end within {timeout} s:\n"
                                     f"{out.read_text() if out.exists() else ''}")
            time.sleep(0.02)
        self.cwd = Path(cwd.read_text().strip())
        return int(done.read_text().strip() or 1), out.read_text()

    def close(self) -> None:
        """End the shell (what it started in the background stays: see stop_processes)."""
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


class PageSandbox:
    """A page's world: an empty directory, a new user's environment, one shell."""

    def __init__(self, directory: Path, start: Path | None = None) -> None:
        self.root = directory
        self.directory = start or directory / "reader"
        self.directory.mkdir(parents=True, exist_ok=True)
        self.home = directory / "home-of-reader"
        self.home.mkdir(exist_ok=True)
        self.env = clean_environment(self.home)
        self.shell = Shell(self.directory, self.env, directory / "shell")
        self.namespace: dict = {"__name__": "__guide__"}
        self.ports: dict[str, str] = {}

    def translate(self, text: str) -> str:
        """Return a sample's text with the page's fixed ports replaced by free ones."""
        for fixed, free in self.ports.items():
            text = re.sub(rf"(?<!\d){fixed}(?!\d)", free, text)
        return text

    def prepare(self, samples: list[Sample]) -> None:
        """Give each fixed port the page names a free one."""
        named = sorted({port for port in FIXED_PORTS for sample in samples
                        if re.search(rf"(?<!\d){port}(?!\d)", sample.text)})
        self.ports = {str(port): str(free)
                      for port, free in zip(named, free_ports(len(named)), strict=True)}

    def write(self, relative: str, text: str) -> Path:
        """Save a file the page shows, where the reader is."""
        target = self.shell.cwd / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n")
        return target

    def stop_processes(self) -> None:
        """End the shell, and stop what the page left running (daemons, its local engines)."""
        import psutil

        self.shell.close()
        mine = str(self.root)
        for process in psutil.process_iter(["cmdline", "cwd"]):
            try:
                cmdline = process.info.get("cmdline") or []
                if not any(name in part for part in cmdline[:3] for name in DAEMONS):
                    continue
                environ = process.environ()
                if any(mine in part for part in cmdline) or \
                        (process.info.get("cwd") or "").startswith(mine) or \
                        environ.get("HOME", "").startswith(mine) or \
                        environ.get("HEARTH_HOME", "").startswith(mine):
                    process.kill()
            except psutil.Error:
                continue

    def run(self, sample: Sample) -> None:
        """Run one sample; raise AssertionError naming the page and line on failure."""
        runner = RUNNERS.get(sample.language)
        if runner is None:
            raise AssertionError(f"{sample.where}: code-block language {sample.language!r} is "
                                 f"not run by the guide tests (use one of {LANGUAGES})")
        runner(self, dataclasses.replace(sample, text=self.translate(sample.text)))

    def run_page(self, samples: list[Sample]) -> None:
        """Run a page's samples in order."""
        self.prepare(samples)
        for sample in samples:
            self.run(sample)


def _commands(text: str) -> list[tuple[str, list[str]]]:
    """Split a console block into (command, expected output lines)."""
    result: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("$ "):
            if not result:
                raise AssertionError(f"console text before the first '$ ' command: {line!r}")
            result[-1][1].append(line)
            index += 1
            continue
        command = line[2:]
        while command.endswith("\\") and index + 1 < len(lines):
            index += 1
            command = command[:-1] + " " + lines[index].strip()
        result.append((command, []))
        index += 1
    return result


def _matches(expected: str, actual: str) -> bool:
    pattern = re.escape(expected.rstrip()).replace(re.escape("..."), ".*")
    return re.fullmatch(pattern, actual.rstrip()) is not None


def check_output(command: str, expected: list[str], output: str, where: str) -> None:
    """Check that the expected lines appear in ``output`` in order."""
    actual = output.splitlines()
    position = 0
    for line in expected:
        if not line.strip() or line.strip() == "...":
            continue
        while position < len(actual) and not _matches(line, actual[position]):
            position += 1
        if position == len(actual):
            raise AssertionError(f"{where}: '$ {command}' did not print {line!r}; it printed:\n"
                                 f"{output}")
        position += 1


def run_console(sandbox: PageSandbox, sample: Sample) -> None:
    """Run each command of a console block in the page's shell and check its output."""
    dry_run = "dry-run" in sample.options.get("class", "").split()
    for command, expected in _commands(sample.text):
        if dry_run:
            if not command.startswith("make "):
                raise AssertionError(f"{sample.where}: a dry-run block holds make lines only")
            argv = ["make", "-n", *command.split()[1:]]
            result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                                    timeout=COMMAND_TIMEOUT)
            code, output = result.returncode, result.stdout + result.stderr
        else:
            code, output = sandbox.shell.run(command)
        failure_shown = any(line.startswith("ERROR:") for line in expected)
        if code != 0 and not failure_shown:
            raise AssertionError(f"{sample.where}: '$ {command}' exited {code}:\n{output}")
        if code == 0 and failure_shown:
            raise AssertionError(f"{sample.where}: '$ {command}' was shown failing but exited 0")
        check_output(command, expected, output, sample.where)


def run_python(sandbox: PageSandbox, sample: Sample) -> None:
    """Write a captioned Python file, or execute an uncaptioned block."""
    code = compile(sample.text, sample.where, "exec")
    caption = sample.options.get("caption")
    if caption:
        sandbox.write(caption, sample.text)
        return
    cwd = os.getcwd()
    os.chdir(sandbox.shell.cwd)
    try:
        exec(code, sandbox.namespace)  # noqa: S102 - the guide's own samples
    finally:
        os.chdir(cwd)


def run_yaml(sandbox: PageSandbox, sample: Sample) -> None:
    """Parse a YAML block; write it where its caption says."""
    yaml.safe_load(sample.text)
    if sample.options.get("caption"):
        sandbox.write(sample.options["caption"], sample.text)


def run_json(sandbox: PageSandbox, sample: Sample) -> None:
    """Parse a JSON block; write it where its caption says."""
    json.loads(sample.text)
    if sample.options.get("caption"):
        sandbox.write(sample.options["caption"], sample.text)


def run_ini(sandbox: PageSandbox, sample: Sample) -> None:
    """Parse an INI block; a Hearth configuration may name Hearth's options only."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(sample.text, source=sample.where)
    caption = sample.options.get("caption", "hearth.conf")
    if caption.endswith("hearth.conf"):
        check_hearth_options(parser, sample.where)
    if "caption" in sample.options:
        sandbox.write(caption, sample.text)


def check_hearth_options(parser: configparser.ConfigParser, where: str) -> None:
    """Raise when a section or option is not one Hearth declares."""
    from hearth.common import config
    declared = {group or "DEFAULT": {opt.dest for opt in opts}
                for group, opts in config.list_opts()}
    for section in ["DEFAULT", *parser.sections()]:
        names = set(parser[section]) - (set(parser.defaults()) if section != "DEFAULT" else set())
        unknown = sorted(names - declared.get(section, set()))
        if unknown:
            raise AssertionError(f"{where}: [{section}] has no option(s) {unknown}")


def shown_lines(text: str, spec: str | None) -> str:
    """Return the part of an included file the page shows (``:lines: 3-``, ``2-5``, ``7``)."""
    if not spec:
        return text
    lines = text.splitlines()
    first, _, last = spec.partition("-")
    begin = int(first) - 1 if first else 0
    end = (int(last) if last else len(lines)) if "-" in spec else begin + 1
    return "\n".join(lines[begin:end])


def run_include(sandbox: PageSandbox, sample: Sample) -> None:
    """An included file: checked as its language; saved at its caption, as the page shows it."""
    text = shown_lines(sample.text, sample.options.get("lines"))
    if sample.language == "include-python":
        compile(text, sample.options["file"], "exec")
    elif sample.language == "include-yaml":
        yaml.safe_load(text)
    if sample.options.get("caption"):
        sandbox.write(sample.options["caption"], text.rstrip("\n"))


RUNNERS = {
    "console": run_console,
    "python": run_python,
    "yaml": run_yaml,
    "json": run_json,
    "ini": run_ini,
    "text": lambda sandbox, sample: None,
    "include-python": run_include,
    "include-yaml": run_include,
    "include-ini": run_include,
    "include-text": run_include,
}

