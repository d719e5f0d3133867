"""HAProxy in front of `m1nd serve --http` replicas, configured from deploy/haproxy.cfg: what the
end-to-end suite (tests/e2e/http_harness.py) and the replicas bench (scripts/bench-replicas.py)
both start. The Python standard library alone, so the bench needs no venv.

The file is used as it is, with every address from the environment; a copy is written only to do
what the file's own comments say to do: a `server` line for each replica past the second, and
the bearer token on the health check for replicas started with one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import procgroup

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "haproxy.cfg"
#: The backend's name in the file.
BACKEND = "m1nd"


def binary() -> str | None:
    """Debian's haproxy, if installed."""
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if Path(p).is_file()), None)


def name(k: int) -> str:
    """The `k`-th replica's server name in the file: a, b, c…"""
    return chr(ord("a") + k)


def config(workdir: Path, replicas: int = 2, token: bool = False) -> Path:
    """deploy/haproxy.cfg, or a copy in `workdir` with a `server` line for each replica past the
    second and, with `token`, `M1ND_HTTP_TOKEN` on the health check."""
    if replicas <= 2 and not token:
        return CONFIG
    text = CONFIG.read_text()
    lines = text.splitlines()
    second = next(line for line in lines if line.strip().startswith(f"server {name(1)} "))
    more = [second.replace(f"server {name(1)} ", f"server {name(k)} ").replace("REPLICA_B", f"REPLICA_{name(k).upper()}")
            for k in range(2, replicas)]
    text = text.replace(second, "\n".join([second, *more]))
    if token:
        check = next(line for line in lines if line.strip().startswith("http-check send "))
        text = text.replace(check, check + ' hdr Authorization "Bearer ${M1ND_HTTP_TOKEN}"')
    path = workdir / "haproxy.cfg"
    path.write_text(text)
    return path


def environment(bind_port: int, replica_ports: list[int], admin: Path, token: str | None = None) -> dict[str, str]:
    """The addresses (and token) the file reads, on loopback."""
    env = dict(os.environ, M1ND_LB_BIND=f"127.0.0.1:{bind_port}", M1ND_LB_ADMIN=str(admin))
    for k, port in enumerate(replica_ports):
        env[f"M1ND_REPLICA_{name(k).upper()}"] = f"127.0.0.1:{port}"
    if token is not None:
        env["M1ND_HTTP_TOKEN"] = token
    return env


def start(haproxy: str, cfg: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """HAProxy in the foreground (`-db`), in a process group of its own: stop it with
    `procgroup.stop`."""
    with open(log, "wb") as err:
        return procgroup.spawn([haproxy, "-f", str(cfg), "-db"], stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                               env=env)


def command(admin: Path, text: str) -> str:
    """One command on the admin socket, and its whole answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(str(admin))
        s.sendall(text.encode() + b"\n")
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()


def servers(admin: Path) -> dict[str, dict[str, str]]:
    """`show stat` for the backend's servers, by name: HAProxy's own counts and states."""
    lines = command(admin, "show stat").splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {r["svname"]: r for r in rows if r["pxname"] == BACKEND and r["svname"] not in ("FRONTEND", "BACKEND")}


def wait_for(process: subprocess.Popen[bytes], admin: Path, wanted: dict[str, str], timeout_s: float,
             log: Path) -> None:
    """Until the servers' states are `wanted` (name → UP or DOWN); RuntimeError past `timeout_s` or
    if HAProxy exits."""
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"haproxy exited {process.returncode}: {log.read_text()}")
        try:
            states = {server: row["status"] for server, row in servers(admin).items()}
        except OSError:
            states = {}
        if states == wanted:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"haproxy saw {states}, not {wanted}, within {timeout_s}s: {log.read_text()}")
        time.sleep(0.1)
