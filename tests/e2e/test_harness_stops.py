"""What the suites start, they stop whole: tests/lib/procgroup.py, which every harness uses to
start and stop its long-lived processes (servers, HAProxy, wrappers).

A wrapper that forks (`faketime` does) must not leave its child running once stopped, and the
files `faketime` keeps in /dev/shm must go with it; files there that the group did not create
are never touched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


from harness import ROOT, debian_program

sys.path.insert(0, str(ROOT / "tests" / "lib"))
import procgroup  # noqa: E402

SETTLE_S = 10.0


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SETTLE_S
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {SETTLE_S:.0f} s"
        time.sleep(0.02)


@contextmanager
def last_resort(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """Should `stop` fail the test, the group is still ended and its files removed."""
    try:
        yield
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        for pattern in procgroup.SHM_LEFT_BY:
            (procgroup.SHM / pattern.format(pid=process.pid)).unlink(missing_ok=True)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_wrapper_and_the_child_it_forked_are_both_stopped() -> None:
    # A shell that forks `sleep` and waits for it, as `faketime` forks the program it runs;
    # the shell ignores SIGTERM, so the bound and the SIGKILL are exercised as well.
    wrapper = procgroup.spawn(["sh", "-c", "trap '' TERM; sleep 300 & wait"], stdin=subprocess.DEVNULL)
    with last_resort(wrapper):
        wait_until(lambda: len(procgroup.members(wrapper.pid)) == 2, "the wrapper forked its child")
        child = next(pid for pid in procgroup.members(wrapper.pid) if pid != wrapper.pid)
        procgroup.stop(wrapper, grace_s=1)
        assert not alive(child), f"the wrapper's child {child} outlived it"
        assert procgroup.members(wrapper.pid) == []


def test_faketime_leaves_no_process_and_no_file_in_dev_shm_and_touches_no_one_else_s() -> None:
    faketime = debian_program("faketime")
    # Named as faketime names its files, for a pid above the kernel's limit (2^22): no process
    # can have created it, so `stop` must leave it.
    someone_else = procgroup.SHM / procgroup.SHM_LEFT_BY[0].format(pid=4_194_305)
    someone_else.write_bytes(b"")
    try:
        wrapper = procgroup.spawn([faketime, "-f", "-400d", "sleep", "300"], stdin=subprocess.DEVNULL)
        with last_resort(wrapper):
            files = [procgroup.SHM / pattern.format(pid=wrapper.pid) for pattern in procgroup.SHM_LEFT_BY]
            wait_until(lambda: len(procgroup.members(wrapper.pid)) == 2, "faketime started its program")
            assert all(f.exists() for f in files), f"faketime created {files}"
            child = next(pid for pid in procgroup.members(wrapper.pid) if pid != wrapper.pid)
            procgroup.stop(wrapper)
            assert not alive(child), f"faketime's child {child} outlived it"
            assert [f for f in files if f.exists()] == [], "faketime's files in /dev/shm were left behind"
            assert someone_else.exists(), "stop removed a file its group did not create"
    finally:
        someone_else.unlink(missing_ok=True)
