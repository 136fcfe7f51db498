"""bench/run_all.py discovers every ``*_bench.py``, runs each, and keeps going past a failure."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
RUN_ALL = os.path.join(ROOT, "bench", "run_all.py")


def _run(*args):
    return subprocess.run([sys.executable, RUN_ALL, *args], capture_output=True, text=True,
                          timeout=60)


def test_lists_the_project_benchmarks():
    listed = _run("--list")
    assert listed.returncode == 0, listed.stderr
    names = listed.stdout.split()
    assert "engine" in names
    assert names == sorted(name[: -len("_bench.py")]
                           for name in os.listdir(os.path.join(ROOT, "bench"))
                           if name.endswith("_bench.py"))


def test_runs_every_discovered_benchmark_and_reports_failures(tmp_path):
    benches = tmp_path / "benches"
    benches.mkdir()
    (benches / "alpha_bench.py").write_text("print('alpha figures')\n")
    (benches / "beta_bench.py").write_text("import sys\nprint('beta broke')\nsys.exit(3)\n")
    (benches / "gamma_bench.py").write_text("print('gamma figures')\n")
    (benches / "helper.py").write_text("raise SystemExit('not a benchmark')\n")
    output = tmp_path / "out"
    result = _run("--directory", str(benches), "--output", str(output))
    assert result.returncode == 1
    assert "alpha figures" in result.stdout and "gamma figures" in result.stdout
    assert "=== beta_bench.py: FAILED (3)" in result.stdout
    assert "Failed: beta" in result.stderr
    assert f"Outputs saved in {output}/<name>.txt" in result.stdout
    assert sorted(os.listdir(output)) == ["alpha.txt", "beta.txt", "gamma.txt"]
    assert (output / "beta.txt").read_text() == "beta broke\n"


def test_only_runs_the_named_ones(tmp_path):
    (tmp_path / "alpha_bench.py").write_text("print('alpha figures')\n")
    (tmp_path / "beta_bench.py").write_text("print('beta figures')\n")
    result = _run("--directory", str(tmp_path), "--output", str(tmp_path / "out"),
                  "--only", "beta")
    assert result.returncode == 0
    assert "beta figures" in result.stdout and "alpha figures" not in result.stdout
    assert _run("--directory", str(tmp_path), "--only", "nope").returncode == 2
