"""Long-lived processes a test or a bench starts: each in a process group of its own, stopped with
the whole group, leaving nothing behind. The Python standard library alone, so the benches and
scripts/leftovers.py need no venv.

The contract:

1. `spawn` starts a command as the leader of a new session (`start_new_session=True`), so the
   command and everything it forks share one process group, whose id is the leader's pid.
2. `stop` sends SIGTERM to the whole group, waits up to a bound for every member to end, then
   sends SIGKILL to whatever is left; it returns only once the group is empty (or raises, naming
   the survivors). A wrapper that forks (`faketime`, `npx`, a shell) cannot leave its child
   behind: the child is in the group.
3. `stop` then removes the files in /dev/shm that the group's own members created and a signal
   kept them from removing (`SHM_LEFT_BY`), and only those: they are named by a member's pid.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

#: How long a group has to end after SIGTERM before it gets SIGKILL.
GRACE_S = 10.0
#: How long a group has to end after SIGKILL (the kernel's part) before `stop` gives up.
KILL_BOUND_S = 10.0

SHM = Path("/dev/shm")
#: Files in /dev/shm named by the pid of the process that created them, which that process
#: removes only on a clean exit: the `faketime` wrapper's shared start time and its semaphore
#: (libfaketime's faketime.c: `/faketime_shm_<pid>`, `/faketime_sem_<pid>`). A wrapper stopped
#: by a signal leaves both.
SHM_LEFT_BY = ("faketime_shm_{pid}", "sem.faketime_sem_{pid}")


def spawn(command: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(command, **popen)` as the leader of a process group of its own."""
    return subprocess.Popen(command, start_new_session=True, **popen)


def members(pgid: int) -> list[int]:
    """The pids of the live (not zombie) processes in process group `pgid`, read from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name (field 2) is in parentheses and may hold spaces: split after it.
        fields = stat[stat.rindex(")") + 2 :].split()
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            found.append(int(entry))
    return found


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _wait_empty(process: subprocess.Popen[bytes], bound_s: float) -> bool:
    deadline = time.monotonic() + bound_s
    while True:
        process.poll()  # reaps the leader, whose zombie would otherwise count as a member
        if process.returncode is not None and not members(process.pid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def stop(process: subprocess.Popen[bytes], grace_s: float = GRACE_S) -> int | None:
    """Stop `process`, started by `spawn`, and every process in its group: SIGTERM, then SIGKILL
    after `grace_s`. Returns the leader's exit status; raises RuntimeError naming the members
    still alive after SIGKILL (a process stuck in the kernel)."""
    pgid = process.pid
    seen = set(members(pgid)) | {pgid}
    _signal_group(pgid, signal.SIGTERM)
    if not _wait_empty(process, grace_s):
        seen |= set(members(pgid))
        _signal_group(pgid, signal.SIGKILL)
        if not _wait_empty(process, KILL_BOUND_S):
            left = members(pgid)
            raise RuntimeError(
                f"process group {pgid} ({process.args!r}) still has members {left} {KILL_BOUND_S:.0f} s "
                f"after SIGKILL; look at them with `ps -o pid,stat,wchan,cmd -g {pgid}`"
            )
    remove_shm_left_by(seen)
    return process.returncode


def remove_shm_left_by(pids: set[int]) -> list[Path]:
    """Remove the /dev/shm files `SHM_LEFT_BY` names for each of `pids`; the paths removed."""
    removed = []
    for pid in pids:
        for pattern in SHM_LEFT_BY:
            path = SHM / pattern.format(pid=pid)
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            removed.append(path)
    return removed
