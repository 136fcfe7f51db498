"""Several threads asking a fresh loader for the same module at once all get it."""

import threading

from hearth.loader import EXECUTION, Loader

SLOW_MODULE = """
import time

time.sleep(0.05)  # a slow import widens the window another thread could fall into


def one():
    return 1


def two():
    return 2
"""


def test_concurrent_first_lookups_all_succeed(tmp_path):
    (tmp_path / "slow.py").write_text(SLOW_MODULE)
    loader = Loader(EXECUTION, {"module_dirs": [str(tmp_path)]})
    results, errors = [], []
    start = threading.Barrier(6)

    def look_up(name):
        start.wait()
        try:
            results.append(loader[name]())
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            errors.append(f"{name}: {error}")

    threads = [threading.Thread(target=look_up, args=(name,))
               for name in ("slow.one", "slow.two") * 3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(results) == [1, 1, 1, 2, 2, 2]
