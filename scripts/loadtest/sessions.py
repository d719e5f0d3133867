"""Many legacy `initialize` calls against `m1nd serve --http`: what the session cap holds the memory to.

    python3 scripts/loadtest/sessions.py --bin target/release/m1nd            20,000 initialize calls
    python3 scripts/loadtest/sessions.py --bin ... --max-sessions 20000       every one held: the cost
                                                                              of a session (RSS / count)

Phases, on a demo store in a temp dir and a server on 127.0.0.1 (a free port), started here and
stopped here by its own pid:

1. one session-era client opens a session and one stateless (2026-07-28) client calls `cockpit`;
   the server's RSS is read (/proc/PID/status VmRSS): "before";
2. `--count` `initialize` calls from `--threads` threads, each on a kept-alive connection, never
   followed by a request in the session they open (what a leaky or hostile client does); the
   two clients above call `cockpit` every 0.2 s meanwhile, and every such call must succeed;
   RSS is sampled: "peak" and "after";
3. the flood's sessions go unused for `--session-idle` (5 s here) plus a margin, so the server
   closes them and hands their memory back: RSS "after eviction" must have fallen at least half
   way back to "before"; a new `initialize` must then get a session, and both
   clients must still be served (the session-era one was used all along, so it is not idle);
4. the same flood again, `--floods` - 1 times, each after the idle wait: RSS "after each flood"
   must level off, not grow with every flood.

Every answer to an `initialize` must be 200 (a session) or 503 (the cap, whose JSON-RPC error
names --max-sessions); anything else, a failed `cockpit`, memory not handed back after the idle
wait, or an RSS after a flood over `--max-rss-mb` makes the exit status 1. Every loop is bounded in count and time. Standard library
only (no venv).
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_http import SESSION_VERSION, Client, Outcome  # noqa: E402
from server import start_on_any_port, status_kib  # noqa: E402
from procgroup import stop  # noqa: E402 (tests/lib, put on the path by server.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

#: The whole flood may take at most this long (a debug build does ~1,000 calls a second).
FLOOD_TIMEOUT_S = 600.0
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rss_mb(pid: int) -> float:
    return status_kib(pid, "VmRSS") / 1024


class Flood:
    """`count` initialize calls shared by `threads` threads; statuses counted."""

    def __init__(self, port: int, count: int, threads: int) -> None:
        self.port, self.count, self.threads = port, count, threads
        self.next = 0
        self.lock = threading.Lock()
        self.statuses: dict[str, int] = {}
        self.refusal = ""

    def take(self) -> int | None:
        with self.lock:
            if self.next >= self.count:
                return None
            self.next += 1
            return self.next

    def note(self, status: str, body: bytes) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == "503" and not self.refusal:
                self.refusal = body.decode(errors="replace")

    def worker(self, deadline: float) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        while (n := self.take()) is not None and time.monotonic() < deadline:
            hello = {"protocolVersion": SESSION_VERSION, "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}}
            body = json.dumps({"jsonrpc": "2.0", "id": n, "method": "initialize", "params": hello}).encode()
            try:
                conn.request("POST", "/mcp", body=body, headers=HEADERS)
                response = conn.getresponse()
                self.note(str(response.status), response.read())
            except (OSError, http.client.HTTPException) as e:
                self.note(type(e).__name__, b"")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.close()

    def run(self) -> None:
        deadline = time.monotonic() + FLOOD_TIMEOUT_S
        workers = [threading.Thread(target=self.worker, args=(deadline,)) for _ in range(self.threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()


class Probes:
    """A session-era and a stateless client calling `cockpit`, every `period` s, until stopped."""

    def __init__(self, port: int, period: float = 0.2) -> None:
        self.clients = [Client("127.0.0.1", port, era, f"probe-{era}") for era in ("session", "stateless")]
        self.period = period
        self.calls = 0
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop)

    def once(self) -> None:
        for client in self.clients:
            answer = client.call("cockpit", {})
            self.calls += 1
            if answer.outcome is not Outcome.OK:
                self.failures.append(f"{client.era}: {answer.outcome.value} {answer.detail}")

    def loop(self) -> None:
        while not self.stop.wait(self.period):
            self.once()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the m1nd binary (debug or release)")
    parser.add_argument("--count", type=int, default=20_000, help="initialize calls (default 20,000)")
    parser.add_argument("--threads", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument("--max-sessions", type=int, help="passed to the server (default: the server's)")
    parser.add_argument("--session-idle", type=float, default=5.0, help="passed to the server (default 5 s)")
    parser.add_argument("--floods", type=int, default=2, help="floods in all, each after the idle wait (default 2)")
    parser.add_argument("--max-rss-mb", type=float, default=300.0, help="fail when RSS after the flood exceeds it")
    args = parser.parse_args()
    quiet.require_quiet("loadtest sessions")
    if not 1 <= args.count <= 200_000 or not 1 <= args.threads <= 64 or not 1 <= args.floods <= 10:
        parser.error("--count must be 1..200000, --threads 1..64 and --floods 1..10")

    extra = ["--session-idle", str(args.session_idle)]
    if args.max_sessions is not None:
        extra += ["--max-sessions", str(args.max_sessions)]
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="m1nd-sessions-") as tmp:
        store = Path(tmp) / "store"
        subprocess.run([args.bin, "init", "--demo", "--store", str(store)], check=True, capture_output=True)
        process, port = start_on_any_port(args.bin, store, Path(tmp) / "serve.stderr", extra)
        try:
            probes = Probes(port)
            probes.once()
            before = rss_mb(process.pid)
            probes.thread.start()
            flood = Flood(port, args.count, args.threads)
            peak = [before]
            sampling = threading.Event()

            def sample() -> None:
                while not sampling.wait(0.25):
                    peak[0] = max(peak[0], rss_mb(process.pid))

            sampler = threading.Thread(target=sample)
            sampler.start()
            started = time.monotonic()
            flood.run()
            flood_s = time.monotonic() - started
            sampling.set()
            sampler.join()
            after = rss_mb(process.pid)
            peak[0] = max(peak[0], after)

            time.sleep(args.session_idle + 3.0)
            evicted = rss_mb(process.pid)
            fresh = Client("127.0.0.1", port, "session", "after-eviction").open_session()
            repeats: list[Flood] = []
            after_each = [round(after, 1)]
            for _ in range(args.floods - 1):
                repeats.append(Flood(port, args.count, args.threads))
                repeats[-1].run()
                after_each.append(round(rss_mb(process.pid), 1))
                time.sleep(args.session_idle + 3.0)
            second = max(after_each)
            probes.stop.set()
            probes.thread.join()
            probes.once()

            served = flood.statuses.get("200", 0)
            report = {
                "binary": args.bin,
                "initialize_calls": args.count,
                "threads": args.threads,
                "server_flags": extra,
                "flood_seconds": round(flood_s, 1),
                "statuses": flood.statuses,
                "rss_mb": {
                    "before": round(before, 1),
                    "peak": round(peak[0], 1),
                    "after_flood": round(after, 1),
                    "after_idle_eviction": round(evicted, 1),
                    "after_each_flood": after_each,
                },
                # Meaningful when no session was closed during the flood (an idle longer than it).
                "kib_per_session_opened": round((after - before) * 1024 / served, 1) if served else None,
                "later_floods_statuses": [f.statuses for f in repeats],
                "cockpit_calls_during_and_after": probes.calls,
                "cockpit_failures": probes.failures[:5],
                "initialize_after_eviction": fresh.outcome.value,
            }
            print(json.dumps(report, indent=2))
            if flood.refusal:
                print("a refusal at the cap:", flood.refusal[:400])
            unexpected = {s: n for f in (flood, *repeats) for s, n in f.statuses.items() if s not in ("200", "503")}
            if unexpected:
                failed.append(f"initialize answers other than 200/503: {unexpected}")
            if sum(flood.statuses.values()) != args.count:
                failed.append(f"only {sum(flood.statuses.values())} of {args.count} calls ran within {FLOOD_TIMEOUT_S} s")
            if flood.statuses.get("503") and "--max-sessions" not in flood.refusal:
                failed.append("the 503 does not name --max-sessions")
            if probes.failures:
                failed.append(f"{len(probes.failures)} cockpit calls failed")
            if fresh.outcome is not Outcome.OK:
                failed.append(f"no session after idle eviction: {fresh.detail}")
            if evicted > before + (after - before) / 2:
                failed.append(f"RSS after the idle wait {evicted:.0f} MB: the closed sessions' memory was not handed back")
            for when, rss in (("the flood", after), ("the later floods", second)):
                if rss > args.max_rss_mb:
                    failed.append(f"RSS after {when} {rss:.0f} MB > --max-rss-mb {args.max_rss_mb:.0f}")
        finally:
            stop(process, grace_s=0)
    for line in failed:
        print("FAILED:", line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
