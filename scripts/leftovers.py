#!/usr/bin/env python3
"""What a CI run leaves behind: processes it started that are still running (and what they
listen on), and files it left in /dev/shm. .ci/run records the machine at its start and checks
at its very end, after every step, failing with the list.

    python3 scripts/leftovers.py start STATE    record what runs now; prints the run's mark
    python3 scripts/leftovers.py check STATE    exit 1, naming each leftover, if there are any
    python3 scripts/leftovers.py --self-test    leave a process running on purpose, and see the
                                                check fail; stop it, and see the check pass

A process counts as the run's if it was not running at `start` and any of these holds:

1. its executable is under the checkout's target/ or under $CARGO_TARGET_DIR (a server, a test
   binary);
2. its working directory is in the checkout (what the suites start from there: HAProxy, node,
   faketime, a Python upstream);
3. its environment carries the run's mark, `M1ND_LEFTOVERS_RUN` (anything started under the run
   that kept its environment, wherever it runs).

Other processes, and their listeners, are none of the run's business: a CI machine may run other
things. A file in /dev/shm is the run's if it is named as procgroup.SHM_LEFT_BY names faketime's
files and was not there at `start`. The Python standard library alone; /proc is read directly.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import procgroup  # noqa: E402

MARK = "M1ND_LEFTOVERS_RUN"
#: The password in a URL's user part (`postgres://user:password@host`): a command line shown in
#: CI's log says which server, never with what secret.
URL_PASSWORD = re.compile(r"(://[^/:@\s]*:)[^@\s]*@")


def target_dirs() -> list[Path]:
    dirs = [ROOT / "target"]
    if os.environ.get("CARGO_TARGET_DIR"):
        dirs.append(Path(os.environ["CARGO_TARGET_DIR"]).resolve())
    return dirs


def processes() -> dict[int, str]:
    """pid → its start time (in clock ticks after boot): a pid reused during the run is a new
    process, told apart by its start time."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            found[int(entry)] = stat[stat.rindex(")") + 2 :].split()[19]
    return found


def shm_names() -> set[str]:
    prefixes = tuple(pattern.split("{pid}")[0] for pattern in procgroup.SHM_LEFT_BY)
    try:
        return {name for name in os.listdir(procgroup.SHM) if name.startswith(prefixes)}
    except FileNotFoundError:
        return set()


def under(path: str, parent: Path) -> bool:
    return path == str(parent) or path.startswith(str(parent) + os.sep)


def ancestors() -> set[int]:
    """This process and the ones it runs under (.ci/run's shell is in the checkout)."""
    found, pid = set(), os.getpid()
    while pid > 1:
        found.add(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            break
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
    return found


def listening() -> dict[int, str]:
    """Socket inode → local address, for every TCP socket in LISTEN (/proc/net/tcp and tcp6)."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != "0A":  # TCP_LISTEN
                continue
            address, port = fields[1].rsplit(":", 1)
            if len(address) == 8:
                host = ".".join(str(b) for b in reversed(bytes.fromhex(address)))
            else:
                host = "[" + address.lower() + "]"
            found[int(fields[9])] = f"{host}:{int(port, 16)}"
    return found


@dataclass
class Leftover:
    pid: int
    pgid: int
    command: str
    why: str
    listens: list[str]

    def __str__(self) -> str:
        on = f", listening on {', '.join(self.listens)}" if self.listens else ""
        return f"  pid {self.pid} (process group {self.pgid}): {self.command}\n    the run's because {self.why}{on}"


def why_the_runs(pid: int, mark: str) -> str | None:
    proc = Path(f"/proc/{pid}")
    try:
        exe = os.readlink(proc / "exe")
    except OSError:
        exe = ""
    for target in target_dirs():
        if exe and under(exe.removesuffix(" (deleted)"), target):
            return f"its executable is under {target}"
    try:
        cwd = os.readlink(proc / "cwd")
    except OSError:
        cwd = ""
    if cwd and under(cwd, ROOT):
        return f"its working directory {cwd} is in the checkout"
    try:
        environ = (proc / "environ").read_bytes().split(b"\0")
    except OSError:
        environ = []
    if f"{MARK}={mark}".encode() in environ:
        return f"it carries the run's mark {MARK}={mark}"
    return None


def describe(pid: int, why: str, sockets: dict[int, str]) -> Leftover | None:
    proc = Path(f"/proc/{pid}")
    try:
        stat = (proc / "stat").read_text()
        cmdline = (proc / "cmdline").read_bytes()
    except OSError:
        return None  # it ended while being looked at
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] == "Z":
        return None  # a zombie holds nothing; its parent has yet to reap it
    # Shown as data: every control character (and anything unprintable) escaped.
    command = cmdline.replace(b"\0", b" ").strip().decode("utf-8", "replace")
    command = URL_PASSWORD.sub(r"\1***@", command)
    command = command.encode("unicode_escape").decode("ascii")[:300]
    listens = []
    try:
        for fd in os.listdir(proc / "fd"):
            target = os.readlink(proc / "fd" / fd)
            if target.startswith("socket:[") and int(target[8:-1]) in sockets:
                listens.append(sockets[int(target[8:-1])])
    except OSError:
        pass
    return Leftover(pid, int(fields[2]), command, why, sorted(set(listens)))


def leftovers(state: dict) -> tuple[list[Leftover], list[str]]:
    before, mark, skip = {tuple(p) for p in state["processes"]}, state["mark"], ancestors()
    sockets = listening()
    found = []
    for pid in sorted(pid for pid, started in processes().items() if (pid, started) not in before and pid not in skip):
        why = why_the_runs(pid, mark)
        if why is not None and (leftover := describe(pid, why, sockets)) is not None:
            found.append(leftover)
    files = sorted(shm_names() - set(state["shm"]))
    return found, files


def start(state_path: Path) -> str:
    mark = os.environ.get(MARK) or f"{os.getpid()}-{secrets.token_hex(6)}"
    state = {"mark": mark, "processes": sorted(processes().items()), "shm": sorted(shm_names())}
    state_path.parent.mkdir(parents=True, exist_ok=True)
    state_path.write_text(json.dumps(state))
    return mark


def check(state_path: Path) -> int:
    try:
        state = json.loads(state_path.read_text())
    except (OSError, ValueError) as e:
        print(f"leftovers: cannot read {state_path} ({e}); run `leftovers.py start {state_path}` first", file=sys.stderr)
        return 2
    found, files = leftovers(state)
    if not found and not files:
        print("leftovers: nothing the run started is still running, and nothing is left in /dev/shm")
        return 0
    if found:
        print(f"leftovers: {len(found)} process(es) the run started are still running:", file=sys.stderr)
        for leftover in found:
            print(leftover, file=sys.stderr)
        print(
            "  The test that started each must stop its whole process group (tests/lib/procgroup.py: "
            f"spawn, then stop). To end them now: kill -TERM {' '.join(str(x.pid) for x in found)}",
            file=sys.stderr,
        )
    if files:
        print(f"leftovers: {len(files)} file(s) left in {procgroup.SHM} since the start:", file=sys.stderr)
        for name in files:
            print(f"  {procgroup.SHM / name}", file=sys.stderr)
        print("  faketime leaves these when stopped by a signal; procgroup.stop removes its group's.", file=sys.stderr)
    return 1


def self_test() -> int:
    """The check fails on a process left running (each of the three ways a process is the run's)
    and on a faketime file, then passes once they are gone."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="m1nd-leftovers-") as tmp:
        state = Path(tmp) / "state.json"
        mark = start(state)
        # 1. An executable under target/: a copy of sleep, run from outside the checkout.
        sleeper_dir = ROOT / "target" / "leftovers-self-test"
        sleeper_dir.mkdir(parents=True, exist_ok=True)
        sleeper = sleeper_dir / "sleep"
        shutil.copy2(shutil.which("sleep") or "/bin/sleep", sleeper)
        clean_env = {k: v for k, v in os.environ.items() if k != MARK}
        # 2. A server on loopback, started from the checkout.
        server_cmd = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "0"]
        # 3. A process elsewhere that carries the mark.
        marked_env = dict(clean_env, **{MARK: mark})
        started = [
            procgroup.spawn([str(sleeper), "60"], cwd="/", env=clean_env, stdout=subprocess.DEVNULL),
            procgroup.spawn(server_cmd, cwd=ROOT, env=clean_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
            # With a URL's password on its command line, which the report must not show. (`; :`
            # keeps the shell from replacing itself with sleep, and so its command line.)
            procgroup.spawn(["sh", "-c", "sleep 60; :", "postgres://m1nd:hunter2@127.0.0.1/m1nd"], cwd="/",
                            env=marked_env, stdout=subprocess.DEVNULL),
        ]
        shm_file = procgroup.SHM / procgroup.SHM_LEFT_BY[0].format(pid=4_194_306)
        try:
            shm_file.write_bytes(b"")
            # The server's listener, once it is up (bounded).
            deadline = time.monotonic() + 10
            while True:
                found, files = leftovers(json.loads(state.read_text()))
                if any(x.listens for x in found) or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            by_pid = {x.pid: x for x in found}
            for process, expected in zip(started, ("executable is under", "working directory", "run's mark")):
                leftover = by_pid.get(process.pid)
                if leftover is None or expected not in leftover.why:
                    failures.append(f"pid {process.pid} ({process.args}) not reported as the run's ({expected})")
            shown = str(by_pid.get(started[2].pid, ""))
            if "hunter2" in shown or "m1nd:***@" not in shown:
                failures.append(f"a URL's password is not masked in the report: {shown}")
            if not any(x.listens and x.listens[0].startswith("127.0.0.1:") for x in found):
                failures.append("the server's loopback listener is not named")
            if shm_file.name not in files:
                failures.append(f"{shm_file} not reported")
            print("leftovers --self-test: the check below must fail, naming what was left on purpose:", flush=True)
            if check(state) != 1:
                failures.append("check did not fail with processes left running")
        finally:
            for process in started:
                procgroup.stop(process)
            shm_file.unlink(missing_ok=True)
            shutil.rmtree(sleeper_dir, ignore_errors=True)
        print("leftovers --self-test: and with all of it stopped, the check below must pass:", flush=True)
        if check(state) != 0:
            failures.append("check did not pass once everything was stopped")
    for failure in failures:
        print(f"leftovers --self-test: FAILED: {failure}", file=sys.stderr)
    if not failures:
        print("leftovers --self-test: a process left running fails the check, in each of the three ways; "
              "a faketime file too; with them stopped it passes")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) == 2 and argv[0] == "start":
        print(start(Path(argv[1])))
        return 0
    if len(argv) == 2 and argv[0] == "check":
        return check(Path(argv[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
