"""A process that races for a stack lock (run by test_lock_concurrency).

Usage: python -m tests.unit.db.lock_racer URL STACK_ID ENGINE_ID SYNC_DIR MODE
It says it is ready, waits for the go file, then tries once and prints
"won" or "lost".  MODE is "acquire" (lock_acquire) or "take" (lock_take,
stealing from a dead holder).
"""

import os
import sys
import time

from hearth.db import api
from hearth.db.session import Database


def main(url, stack_id, engine_id, sync_dir, mode):
    db = Database(url)
    # an engine registers (and so is alive) before it takes locks
    api.engine_register(db, engine_id, host="127.0.0.1", pid=os.getpid(), binary="racer")
    open(os.path.join(sync_dir, f"ready-{engine_id}"), "w").close()
    while not os.path.exists(os.path.join(sync_dir, "go")):
        time.sleep(0.002)
    if mode == "acquire":
        holder = api.lock_acquire(db, stack_id, engine_id)
    else:
        holder = api.lock_take(db, stack_id, engine_id, timeout=2.0)
    print("won" if holder is None else "lost")
    db.dispose()


if __name__ == "__main__":
    main(*sys.argv[1:])
