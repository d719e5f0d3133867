"""Fair shares per agent: one agent loops `doctor` on `--connections` connections while another
agent calls `doctor` one call at a time; the other agent's p50 is compared with its p50 on the
idle server, in the same run. Goal: within 2x with per-agent access tokens (each agent is one lane
of the server's fair queue, however many connections it opens).

The same is measured with one shared token (`M1ND_HTTP_TOKEN`), where the server cannot tell the
two clients apart and shares out by connection: the looping client's many connections then get as
many shares. Tokens are minted here with a throwaway Ed25519 key (PyJWT, cryptography). Every
loop is bounded in count and time; a timing never fails the run, an error does.

    scripts/bench-agents.sh [--connections N] [--seconds S] [--idle-calls N] [--alerts N]
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "loadtest"))
import jwt  # noqa: E402
import seed  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

ROOT = Path(__file__).resolve().parents[1]
ISSUER, AUDIENCE = "https://auth.bench.example", "https://m1nd.bench.example/mcp"
SHARED = "a-shared-bench-token-0123456789"
ADDRESS = re.compile(r"serving MCP on http://(?P<addr>[^\s\"/]+)/mcp")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def body(request_id: int) -> bytes:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
               "params": {"name": "doctor", "arguments": {}, "_meta": meta}}
    return json.dumps(message).encode()


HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "doctor"}


class Caller:
    """One keep-alive connection calling `doctor` with `token`."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {**HEADERS, "Authorization": f"Bearer {token}"}
        self.n = 0

    def call(self) -> float:
        self.n += 1
        t0 = time.perf_counter()
        self.conn.request("POST", "/mcp", body=body(self.n), headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - t0
        if response.status != 200 or b'"isError":true' in data:
            raise RuntimeError(f"doctor: {response.status} {data[:200]!r}")
        return elapsed


def start(binary: Path, store: Path, args: list[str], env: dict[str, str], log: Path) -> tuple[subprocess.Popen, int]:
    with open(log, "wb") as errlog:
        process = subprocess.Popen([str(binary), "serve", "--store", str(store), "--http", "127.0.0.1:0", *args],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = ADDRESS.search(log.read_text(errors="replace"))
        if found:
            return process, int(found["addr"].rsplit(":", 1)[1])
        if process.poll() is not None:
            sys.exit(f"m1nd serve exited: {log.read_text()}")
        time.sleep(0.02)
    process.kill()
    sys.exit("m1nd serve printed no address")


def p50_ms(latencies: list[float]) -> float:
    return 1000 * statistics.median(latencies)


def loop_agent(port: int, token: str, connections: int, stop, counts) -> None:
    """The looping agent, in a process of its own (so that the measured caller does not wait for
    this one's threads to let go of Python's lock): `connections` threads, each a connection
    calling `doctor` until `stop`. Refusals for the per-client queue cap are what an agent that
    floods is told, counted apart; anything else is an error."""
    tallies = {"calls": 0, "capped": 0, "errors": []}
    lock = threading.Lock()

    def loop() -> None:
        c = Caller(port, token)
        while not stop.is_set():
            try:
                c.call()
                outcome = "calls"
            except RuntimeError as e:
                if "max-queued-per-client" not in str(e):
                    with lock:
                        tallies["errors"].append(str(e))
                    return
                outcome = "capped"
            with lock:
                tallies[outcome] += 1

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    counts.put(tallies)


def measure(port: int, looper: str, other: str, args) -> dict:
    """The other agent's p50 idle, then beside the looper's connections."""
    caller = Caller(port, other)
    for _ in range(20):  # warm-up
        caller.call()
    idle = [caller.call() for _ in range(args.idle_calls)]
    context = multiprocessing.get_context("fork")
    stop, counts = context.Event(), context.Queue()
    flood = context.Process(target=loop_agent, args=(port, looper, args.connections, stop, counts))
    flood.start()
    time.sleep(1.0)
    loaded: list[float] = []
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline and len(loaded) < 100_000:
        loaded.append(caller.call())
    stop.set()
    tallies = counts.get(timeout=120)
    flood.join(timeout=60)
    return {"idle_p50_ms": p50_ms(idle), "loaded_p50_ms": p50_ms(loaded), "ratio": p50_ms(loaded) / p50_ms(idle),
            "other_calls": len(loaded), "looper_calls": tallies["calls"], "looper_capped": tallies["capped"],
            "errors": tallies["errors"][:3]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release/m1nd")
    parser.add_argument("--connections", type=int, default=40, help="the looping agent's connections")
    parser.add_argument("--seconds", type=float, default=10.0, help="the other agent's calls beside the loop")
    parser.add_argument("--idle-calls", type=int, default=300)
    parser.add_argument("--alerts", type=int, default=20_000, help="alerts seeded: what makes `doctor` a real read")
    args = parser.parse_args()
    quiet.require_quiet("bench-agents")
    if not 1 <= args.connections <= 200 or not 1 <= args.seconds <= 120 or not 10 <= args.idle_calls <= 10_000:
        sys.exit("--connections 1..200, --seconds 1..120, --idle-calls 10..10000")
    if not 0 <= args.alerts <= 1_000_000:
        sys.exit("--alerts 0..1000000")
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    now = int(time.time())

    def token(agent: str) -> str:
        claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": agent, "iat": now, "exp": now + 3600}
        return jwt.encode(claims, key, algorithm="EdDSA", headers={"kid": "bench"})

    results = {}
    with tempfile.TemporaryDirectory(prefix="m1nd-bench-agents-") as work:
        work_dir = Path(work)
        store, _ = seed.seed(args.bin, work_dir, args.alerts, 0)
        jwks = work_dir / "jwks.json"
        jwks.write_text(json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": b64url(public), "kid": "bench",
                                              "alg": "EdDSA"}]}))
        env = {k: v for k, v in os.environ.items() if k != "M1ND_HTTP_TOKEN"}
        modes = [
            ("per-agent tokens", ["--jwks", str(jwks), "--token-issuer", ISSUER, "--token-audience", AUDIENCE], env,
             token("looper"), token("other")),
            ("one shared token", [], {**env, "M1ND_HTTP_TOKEN": SHARED}, SHARED, SHARED),
        ]
        for name, flags, mode_env, looper, other in modes:
            process, port = start(args.bin, store, flags, mode_env, work_dir / f"{name.split()[0]}.stderr")
            try:
                results[name] = measure(port, looper, other, args)
            finally:
                process.terminate()
                process.wait(timeout=30)
    print(f"m1nd agents bench, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
          f"{args.alerts:,} alerts; one agent looping doctor on {args.connections} connections, another calling doctor "
          f"for {args.seconds:g} s")
    print("\n| mode | other agent's doctor p50, idle | beside the loop | ratio | looper calls | looper capped "
          "| other calls |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, r in results.items():
        print(f"| {name} | {r['idle_p50_ms']:.2f} ms | {r['loaded_p50_ms']:.2f} ms | {r['ratio']:.2f}x | "
              f"{r['looper_calls']:,} | {r['looper_capped']:,} | {r['other_calls']:,} |")
    print(f"\ngoal: per-agent tokens within 2x; load average at the end: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    failures = [f"{name}: {r['errors']}" for name, r in results.items() if r["errors"]]
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
