"""Find the code samples of the user guide and run them, page by page.

Every sample in ``docs/`` is a ``.. code-block:: LANGUAGE`` (a bare ``::``
literal block is refused, so that no sample escapes) or a
``.. literalinclude::`` of a file under ``docs/examples/``.  Each page runs
in its own sandbox: a temporary directory holding a copy of
``docs/examples/`` (so ``examples/modules/x.py`` in the page is
``modules/x.py`` there), with ``HEARTH_HOME`` inside it, the venv's
``bin`` first on ``PATH``, and ``HEARTH_CONFIG`` set once the page wrote a
``hearth.conf``.  Samples run in page order:

``console``
    Each ``$ command`` line (continued by a trailing ``\\``) runs in bash in
    the sandbox.  The lines after it are expected output: each must match a
    line of stdout+stderr, in order (``...`` inside a line matches
    anything; a line that is only ``...`` marks elided output).  A command
    must exit 0 unless its expected output shows an ``ERROR:`` line.  With
    ``:class: dry-run``, only ``make TARGET`` lines are allowed and run as
    ``make -n TARGET`` in the repository (installation steps).
``python``
    With ``:caption: PATH``: written to PATH in the sandbox and compiled
    (a file later samples use).  Without: executed, one namespace per page.
``yaml``
    Parsed; with ``:caption: PATH`` also written there (templates the
    console samples create stacks from).
``ini``
    Parsed; written to its ``:caption:`` path if any.  A ``hearth.conf``
    (or an uncaptioned block) may only name Hearth's own options.
``text``
    Not run: diagrams and output shown on their own.
"""

from __future__ import annotations

import configparser
import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
BIN = Path(sys.executable).parent
DIRECTIVE = re.compile(r"^(\s*)\.\. (code-block|literalinclude)::\s*(\S+)\s*$")
OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")
LANGUAGES = ("console", "python", "yaml", "ini", "text")
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
    page = str(path.relative_to(DOCS))
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
            options.setdefault("caption", argument)
            samples.append(Sample(page, index + 1, f"include-{language}",
                                  included.read_text(), {**options, "file": str(included)}))
        else:
            samples.append(Sample(page, index + 1, argument, content, options))
        index = after
    return samples


# --- running -------------------------------------------------------------------

class PageSandbox:
    """A page's temporary world: files, environment, Python namespace."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        if EXAMPLES.exists():
            shutil.copytree(EXAMPLES, directory, dirs_exist_ok=True)
        self.namespace: dict = {"__name__": "__guide__"}
        self.env = dict(os.environ, HEARTH_HOME=str(directory / "home"),
                        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                        PYTHONWARNINGS="ignore", TERM="dumb")
        for name in ("HEARTH_CONFIG", "HEARTH_URL", "HEARTH_TOKEN", "NO_COLOR"):
            self.env.pop(name, None)

    def write(self, relative: str, text: str) -> Path:
        """Write a sample's file into the sandbox."""
        target = self.directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n")
        if target.name == "hearth.conf":
            self.env["HEARTH_CONFIG"] = str(target)
        return target

    def stop_processes(self) -> None:
        """Kill the daemons the page's commands left running (its master, its agents)."""
        import psutil

        mine = str(self.directory)
        for process in psutil.process_iter(["cmdline"]):
            try:
                cmdline = process.info.get("cmdline") or []
                if not any(name in part for part in cmdline[:2]
                           for name in ("hearth-master", "hearth-agent")):
                    continue
                if any(mine in part for part in cmdline) or \
                        process.environ().get("HEARTH_HOME", "").startswith(mine):
                    process.kill()
            except psutil.Error:
                continue

    def run(self, sample: Sample) -> None:
        """Run one sample; raise AssertionError naming the page and line on failure."""
        runner = RUNNERS.get(sample.language)
        if runner is None:
            raise AssertionError(f"{sample.where}: code-block language {sample.language!r} is "
                                 f"not run by the guide tests (use one of {LANGUAGES})")
        runner(self, sample)


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
    """Run each command of a console block and check its output."""
    dry_run = "dry-run" in sample.options.get("class", "").split()
    for command, expected in _commands(sample.text):
        if dry_run:
            if not command.startswith("make "):
                raise AssertionError(f"{sample.where}: a dry-run block holds make lines only")
            argv = ["make", "-n", *command.split()[1:]]
            result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                                    timeout=COMMAND_TIMEOUT)
        else:
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                                    cwd=sandbox.directory, env=sandbox.env, capture_output=True,
                                    text=True, timeout=COMMAND_TIMEOUT, stdin=subprocess.DEVNULL)
        output = result.stdout + result.stderr
        failure_shown = any(line.startswith("ERROR:") for line in expected)
        if result.returncode != 0 and not failure_shown:
            raise AssertionError(f"{sample.where}: '$ {command}' exited {result.returncode}:\n"
                                 f"{output}")
        if result.returncode == 0 and failure_shown:
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
    os.chdir(sandbox.directory)
    try:
        exec(code, sandbox.namespace)  # noqa: S102 - the guide's own samples
    finally:
        os.chdir(cwd)


def run_yaml(sandbox: PageSandbox, sample: Sample) -> None:
    """Parse a YAML block; write it where its caption says."""
    yaml.safe_load(sample.text)
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


def run_include(sandbox: PageSandbox, sample: Sample) -> None:
    """An included file: Python is compiled (its behaviour is shown by console samples)."""
    if sample.language == "include-python":
        compile(sample.text, sample.options["file"], "exec")
    elif sample.language == "include-yaml":
        yaml.safe_load(sample.text)


RUNNERS = {
    "console": run_console,
    "python": run_python,
    "yaml": run_yaml,
    "ini": run_ini,
    "text": lambda sandbox, sample: None,
    "include-python": run_include,
    "include-yaml": run_include,
    "include-ini": run_include,
    "include-text": run_include,
}

