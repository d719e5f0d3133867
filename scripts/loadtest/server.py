"""`m1nd serve --http` as a child process of the load test: start, `kill -9`, restart, measure.

The server always listens on the same loopback port, so clients reconnect to the address they
had once it is back. What it prints goes to a file; the address line says it is ready and the
login line gives the human's one-time link. Only the processes started here are ever signalled:
each runs in a process group of its own (tests/lib/procgroup.py), and `kill -9` goes to its pid.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "lib"))
from procgroup import spawn, stop  # noqa: E402

READY = re.compile(r"m1nd: serving MCP on http://127\.0\.0\.1:(?P<port>\d+)/mcp")
LOGIN = re.compile(r"m1nd: the tray: open (?P<link>http://\S+)")
START_TIMEOUT_S = 60.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def status_kib(pid: int, key: str) -> int:
    """A `VmRSS`/`VmHWM` line of /proc/PID/status, in KiB (0 if the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def start_on_any_port(
    binary: str | Path, store: str | Path, log: Path, extra: list[str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """`m1nd serve --http 127.0.0.1:0` (plus `extra`), its stderr to `log`, and the port it printed.
    Raises if it exits first or prints no address within START_TIMEOUT_S."""
    with open(log, "wb") as err:
        process = spawn(
            [str(binary), "serve", "--store", str(store), "--http", "127.0.0.1:0", *(extra or [])],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        ready = READY.search(log.read_text(errors="replace"))
        if ready:
            return process, int(ready["port"])
        if process.poll() is not None:
            stop(process)
            raise RuntimeError(f"m1nd serve exited {process.returncode}: {log.read_text(errors='replace')[-1000:]}")
        time.sleep(0.02)
    stop(process)
    raise RuntimeError(f"m1nd serve printed no address within {START_TIMEOUT_S:.0f} s; see {log}")


@dataclass
class Life:
    """One run of the server process, from start to its end."""

    pid: int
    started: float
    ready_after_s: float
    peak_rss_kib: int = 0
    last_rss_kib: int = 0
    hwm_kib: int = 0
    cpu_s: float = 0.0
    ended_by: str = ""


@dataclass
class Server:
    binary: Path
    store: Path
    logs: Path
    port: int
    #: `--request-timeout` in seconds, or None for the server's default.
    request_timeout: float | None = None
    process: subprocess.Popen[bytes] | None = None
    lives: list[Life] = field(default_factory=list)
    login_link: str = ""

    @property
    def url_host(self) -> str:
        return "127.0.0.1"

    def start(self) -> Life:
        """Start on the fixed port and wait until it prints its address."""
        log = self.logs / f"serve-{len(self.lives) + 1}.stderr"
        started = time.monotonic()
        deadline = started + START_TIMEOUT_S
        while True:
            with open(log, "wb") as err:
                self.process = spawn(
                    [str(self.binary), "serve", "--store", str(self.store), "--http", f"127.0.0.1:{self.port}"]
                    # The arrival timeout (a head's, and so a kept-alive connection's idle
                    # time) follows it too, as it did when one timeout bounded both.
                    + (
                        ["--request-timeout", str(self.request_timeout), "--arrival-timeout", str(self.request_timeout)]
                        if self.request_timeout
                        else []
                    ),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env={k: v for k, v in os.environ.items() if k not in ("M1ND_READ_ONLY", "M1ND_HTTP_TOKEN")},
                )
            while time.monotonic() < deadline:
                text = log.read_text(errors="replace")
                ready, login = READY.search(text), LOGIN.search(text)
                if ready and login:
                    self.login_link = login["link"]
                    life = Life(self.process.pid, started, time.monotonic() - started)
                    self.lives.append(life)
                    return life
                if self.process.poll() is not None:
                    break
                time.sleep(0.01)
            if self.process.poll() is None:
                stop(self.process, grace_s=0)
                raise RuntimeError(f"m1nd serve --http printed no address within {START_TIMEOUT_S:.0f} s; see {log}")
            # The port may still be held a moment after a kill: try again until the deadline.
            if time.monotonic() >= deadline or "cannot listen" not in log.read_text(errors="replace"):
                raise RuntimeError(f"m1nd serve --http exited {self.process.returncode}: {log.read_text()[-1000:]}")
            time.sleep(0.05)

    def sample(self) -> None:
        """Note the running server's memory (called periodically by the driver)."""
        if self.process is None or not self.lives:
            return
        life = self.lives[-1]
        try:
            rss, hwm, cpu = status_kib(life.pid, "VmRSS"), status_kib(life.pid, "VmHWM"), cpu_seconds(life.pid)
        except OSError:
            return  # the process ended between two reads (the kill)
        if rss:
            life.last_rss_kib = rss
            life.peak_rss_kib = max(life.peak_rss_kib, rss)
            life.hwm_kib = max(life.hwm_kib, hwm)
            life.cpu_s = cpu

    def cpu(self) -> float:
        assert self.process is not None
        return cpu_seconds(self.process.pid)

    def kill9(self) -> None:
        """`kill -9` the running server, as a crash would stop it."""
        assert self.process is not None
        self.sample()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.lives[-1].ended_by = "kill -9"

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.sample()
        stop(self.process)
        self.lives[-1].ended_by = "SIGTERM"
