"""A team on one machine: writers, heavy readers and a human against `m1nd serve --http`, with a
`kill -9` and a restart in the middle, and what the disk and the CPU allow, in the same run.

Phases, in order (every loop bounded by its deadline and a count cap):

1. Seed a big store: the demo plus `--alerts` alerts and `--memories` memories, through
   `m1nd store import` (seed.py).
2. The disk beside the store (disk.py): `os.fsync` rate with 1 and with 32 threads, and a
   minimal durable SQLite write loop (the store's DELETE journal and `synchronous = EXTRA`, one
   insert per transaction) with 1 and with 32 threads.
3. The server's cockpit rate with 32 clients and nothing else (rate.py): what the CPU allows.
4. The team (roles.py), for `--seconds`: 32 writers (`memorize`, unique claims), 8 heavy readers
   (`trace` with a long error text, every alert scanned), one human polling the cockpit root;
   half the clients stateless (2026-07-28), half in sessions. Halfway, the server is killed
   with SIGKILL and started again on the same store and port.
5. The server is stopped; every acknowledged write must be in the store (verify.py), and the
   1-thread fsync and SQLite rates are taken once more, to show how far the disk drifted.

Exit status 1 when a write was lost, any error was counted, the store's quick_check is not
`ok`, or the server acknowledged no write before or after the restart; never for a timing (a
408, the server's request timeout running out, and a "store busy", SQLite's lock held past the
store's busy timeout, are counted and reported as timings).

    scripts/loadtest/run.sh [--short] [--seconds S] [--alerts N] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import sqlite3
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import disk  # noqa: E402
import rate  # noqa: E402
import roles  # noqa: E402
import seed  # noqa: E402
from mcp_http import free_port  # noqa: E402
from server import Server  # noqa: E402
from verify import verify  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)

ROOT = Path(__file__).resolve().parents[2]
#: The full form serves with the server's default request timeout (10 s), as users get it; the
#: short form gives requests 120 s, so a slow disk in CI makes answers slow, not 408s.
FULL = {"seconds": 60.0, "alerts": 100_000, "memories": 100_000, "probe_seconds": 5.0, "rate_seconds": 10.0,
        "request_timeout": None}
SHORT = {"seconds": 10.0, "alerts": 5_000, "memories": 5_000, "probe_seconds": 1.0, "rate_seconds": 2.0,
         "request_timeout": 120.0}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def ms(values: list[float], p: float) -> str:
    return f"{1000 * percentile(values, p):,.1f} ms" if values else "-"


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    mem_kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                       if line.startswith("MemTotal")))
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 2**20, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "python_sqlite": sqlite3.sqlite_version,
        "load_average_at_start": os.getloadavg(),
    }


def team(server: Server, run: roles.Run, args, error_text: str) -> dict:
    """Phase 4: the team for `args.seconds`, the kill -9 and restart halfway."""
    acknowledged: list[str] = []
    writers = [roles.Tally("writer", "stateless" if k % 2 == 0 else "session") for k in range(args.writers)]
    readers = [roles.Tally("reader", "stateless" if k % 2 == 0 else "session") for k in range(args.readers)]
    human_mcp, human_page = roles.Tally("human", "session"), roles.Tally("human page", "cookie")
    matches: list[int] = []
    threads = [threading.Thread(target=roles.writer, args=(run, k, t.era, acknowledged, t)) for k, t in enumerate(writers)]
    threads += [threading.Thread(target=roles.reader, args=(run, k, t.era, error_text, t, matches))
                for k, t in enumerate(readers)]
    threads.append(threading.Thread(target=roles.human, args=(run, args.think, human_mcp, human_page)))

    def sampler() -> None:
        while not run.stop.wait(0.2):
            server.sample()

    sampling = threading.Thread(target=sampler)
    cpu0, started = os.times(), time.monotonic()
    sampling.start()
    for t in threads:
        t.start()
    time.sleep(args.seconds / 2)
    acked_before_kill = len(acknowledged)
    killed_at = time.monotonic() - started
    run.up.clear()
    run.restarted = True
    server.kill9()
    down = time.monotonic()
    life = server.start()
    run.became_ready(server.login_link)
    downtime = time.monotonic() - down
    time.sleep(max(0.0, started + args.seconds - time.monotonic()))
    window = time.monotonic() - started
    acked_in_window = len(acknowledged)
    run.stop.set()
    for t in threads:
        t.join(timeout=120)
    sampling.join()
    cpu1 = os.times()
    stuck = sum(t.is_alive() for t in threads)
    return {
        "acknowledged": acknowledged,
        "acked_before_kill": acked_before_kill,
        "acked_in_window": acked_in_window,
        "window_s": window,
        "killed_at_s": killed_at,
        "downtime_s": downtime,
        "restart_ready_s": life.ready_after_s,
        "writers": writers,
        "readers": readers,
        "human_mcp": human_mcp,
        "human_page": human_page,
        "matches": matches,
        "driver_cores": ((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)) / window,
        "stuck_threads": stuck,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release/m1nd")
    parser.add_argument("--short", action="store_true", help="the CI form: about 25 s in all, a smaller store")
    parser.add_argument("--seconds", type=float, help="length of the team phase (kill -9 halfway)")
    parser.add_argument("--alerts", type=int, help="alerts seeded (what every trace scans)")
    parser.add_argument("--memories", type=int, help="memories seeded")
    parser.add_argument("--probe-seconds", type=float, help="length of each disk probe")
    parser.add_argument("--rate-seconds", type=float, help="length of the cockpit-rate phase")
    parser.add_argument("--request-timeout", type=float, help="the server's --request-timeout, seconds")
    parser.add_argument("--writers", type=int, default=32)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--rate-clients", type=int, default=32)
    parser.add_argument("--rate-processes", type=int, default=4, help="client processes the rate clients share")
    parser.add_argument("--think", type=float, default=0.1, help="the human's pause between looks, seconds")
    parser.add_argument("--trace-bytes", type=int, default=16 * 1024, help="length of trace's error_text")
    parser.add_argument("--out", type=Path, default=ROOT / "target/loadtest")
    parser.add_argument("--json", action="store_true", help="also write OUT/report.json")
    args = parser.parse_args()
    if not args.short:
        # The short form is CI's check, not a measurement: it runs on a busy machine.
        quiet.require_quiet("loadtest")
    for key, value in (SHORT if args.short else FULL).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if not (1 <= args.seconds <= 3600 and 0 < args.probe_seconds <= 600 and 0 < args.rate_seconds <= 600):
        sys.exit("--seconds must be 1..3600, --probe-seconds and --rate-seconds 0..600")
    if not args.bin.exists():
        sys.exit(f"{args.bin} does not exist: build it with `cargo build --release --bin m1nd` (run.sh does)")

    out: Path = args.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    facts = machine()
    form = "short" if args.short else "full"
    print(f"m1nd load test ({form}), {facts['date_utc']}; {facts['cores']} cores {facts['cpu']}, "
          f"{facts['memory_gib']} GiB, Linux {facts['kernel']}; load average at start "
          f"{', '.join(f'{x:.2f}' for x in facts['load_average_at_start'])}", flush=True)

    store, seeded_s = seed.seed(args.bin, out, args.alerts, args.memories)
    db = store / "state.db"
    print(f"store: demo + {args.alerts:,} alerts + {args.memories:,} memories, {db.stat().st_size / 2**20:.1f} MiB, "
          f"imported in {seeded_s:.1f} s ({db})", flush=True)

    probes = {
        "fsync_1": disk.fsync_rate(store, args.probe_seconds, 1),
        "fsync_32": disk.fsync_rate(store, args.probe_seconds, 32),
        "sqlite_1": disk.sqlite_rate(store.parent, args.probe_seconds, 1),
        "sqlite_32": disk.sqlite_rate(store.parent, args.probe_seconds, 32),
    }

    server = Server(args.bin, store, out, free_port(), args.request_timeout)
    run = roles.Run(server.url_host, server.port, uuid.uuid4().hex[:12])
    error_text = seed.error_text(args.trace_bytes)
    try:
        server.start()
        cockpit = rate.cockpit_rate(server.url_host, server.port, server.cpu, args.rate_clients,
                                    args.rate_processes, args.rate_seconds)
        run.became_ready(server.login_link)
        result = team(server, run, args, error_text)
    finally:
        run.stop.set()  # clients still running (a failed phase) stop at their next turn
        server.stop()  # never leave the server behind, whatever failed
    verdict = verify(db, run.run_id, result["acknowledged"])
    # The disk is shared and drifts: the probes again, to bracket the load.
    probes["fsync_1_after"] = disk.fsync_rate(store, args.probe_seconds, 1)
    probes["sqlite_1_after"] = disk.sqlite_rate(store.parent, args.probe_seconds, 1)

    failures = report(args, probes, cockpit, result, verdict, server, len(error_text))
    if args.json:
        (out / "report.json").write_text(json.dumps({
            "form": form, "machine": facts, "args": {k: str(v) for k, v in vars(args).items()},
            "probes": probes, "cockpit_rate": cockpit,
            "team": {k: v for k, v in result.items() if k not in ("acknowledged", "writers", "readers", "human_mcp",
                                                                 "human_page", "matches")},
            "lost": verdict.lost, "failures": failures,
        }, indent=2, default=str))
    return 1 if failures else 0


def report(args, probes, cockpit, r, verdict, server: Server, trace_bytes: int) -> list[str]:
    """Print the figures; the reasons to fail, if any."""
    p = print
    fsync1, sqlite1 = probes["fsync_1"], probes["sqlite_1"][0]
    p("\n-- the disk, in the store's directory (disk.py)")
    p(f"  fsync, 1 thread                          {fsync1:>9,.0f} /s")
    p(f"  fsync, 32 threads (a file each)          {probes['fsync_32']:>9,.0f} /s")
    p(f"  SQLite DELETE+EXTRA, 1 insert per commit, 1 thread     {sqlite1:>9,.0f} commits/s "
      f"(Python sqlite3, SQLite {sqlite3.sqlite_version})")
    p(f"  SQLite DELETE+EXTRA, 1 insert per commit, 32 threads   {probes['sqlite_32'][0]:>9,.0f} commits/s "
      f"({probes['sqlite_32'][1]} BEGINs gave up busy after 5 s)")
    p(f"  fsync, 1 thread, after the load          {probes['fsync_1_after']:>9,.0f} /s")
    p(f"  SQLite DELETE+EXTRA, 1 thread, after the load          {probes['sqlite_1_after'][0]:>9,.0f} commits/s")

    c = cockpit
    p(f"\n-- cockpit root, {c['clients']} stateless clients, nothing else running (rate.py), {c['seconds']:.1f} s")
    p(f"  {c['calls_per_s']:,.0f} calls/s ({c['calls']:,} calls), p50 {c['p50_ms']:.2f} ms, p99 {c['p99_ms']:.2f} ms, "
      f"{c['errors']} errors")
    p(f"  server CPU {c['server_cores']:.2f} cores, {c['server_cpu_us_per_call']:.0f} us per call "
      f"(= {1e6 / max(c['server_cpu_us_per_call'], 1e-9):,.0f} calls per server core-second); "
      f"clients ({c['processes']} processes) {c['clients_cores']:.2f} cores")

    writers, readers = r["writers"], r["readers"]
    w_lat = [x for t in writers for x in t.latencies_s]
    t_lat = [x for t in readers for x in t.latencies_s]
    acked, window, down = r["acked_in_window"], r["window_s"], r["downtime_s"]
    wps = acked / window
    p(f"\n-- the team for {window:.1f} s: {args.writers} writers, {args.readers} trace readers "
      f"({trace_bytes:,}-byte error text, {args.alerts:,} alerts), 1 human (pause {args.think:.2f} s)")
    p(f"  acknowledged writes      {acked:,} in the window: {wps:,.1f} /s "
      f"({acked / max(window - down, 1e-9):,.1f} /s not counting the {down:.2f} s the server was down)")
    sqlite_after = probes["sqlite_1_after"][0]
    p(f"    against the disk       {wps / fsync1:.3f}x the fsync rate (1 thread), {wps / sqlite1:.3f}x the minimal "
      f"SQLite loop (1 thread) before the load, {wps / max(sqlite_after, 1e-9):.3f}x after it")
    p(f"    write latency          p50 {ms(w_lat, 50)}, p99 {ms(w_lat, 99)}")
    p(f"  lost writes              {len(verdict.lost)} of {verdict.acknowledged:,} acknowledged "
      f"(before the kill {r['acked_before_kill']:,}); {verdict.unacknowledged_stored} unacknowledged writes "
      f"stored anyway; quick_check {verdict.quick_check}; {verdict.memories:,} memories in the store")
    p(f"  trace                    {len(t_lat):,} calls ({len(t_lat) / window:,.2f} /s), p50 {ms(t_lat, 50)}, "
      f"p99 {ms(t_lat, 99)}, {percentile([float(m) for m in r['matches']], 50):,.0f} matches each")
    for label, t in (("human, MCP cockpit {}", r["human_mcp"]), ("human, GET /cockpit.json", r["human_page"])):
        p(f"  {label:<24} p50 {ms(t.latencies_s, 50)}, p99 {ms(t.latencies_s, 99)} ({t.ok} looks)")
    p(f"  restart                  kill -9 at {r['killed_at_s']:.1f} s; serving again after {r['downtime_s']:.2f} s")
    everyone = writers + readers + [r["human_mcp"], r["human_page"]]
    interrupted = sum(t.interrupted for t in everyone)
    gone = sum(t.sessions_gone for t in everyone)
    sessions = sum(t.sessions_opened for t in writers + readers + [r["human_mcp"]])
    session_clients = sum(t.era == "session" for t in writers + readers) + 1
    p(f"  sessions                 {sessions} MCP sessions opened by {session_clients} session clients "
      f"({gone} found gone after the restart and opened again); {r['human_page'].sessions_opened} page logins; "
      f"{sum(t.era == 'stateless' for t in writers + readers)} clients stateless")
    p(f"  interrupted requests     {interrupted} (in flight at the kill or sent while down)")
    timeout = f"{args.request_timeout:g} s" if args.request_timeout else "the default 10 s"
    p(f"  timed out (408)          " + ", ".join(f"{role} {n}" for role, n in _by_role(everyone, "timeouts"))
      + f" (the server's request timeout: {timeout})")
    p(f"  store busy (retry)       " + ", ".join(f"{role} {n}" for role, n in _by_role(everyone, "busy"))
      + " (SQLite's lock held past the store's 5 s busy timeout)")
    for n, life in enumerate(server.lives, 1):
        p(f"  server life {n}            ready after {life.ready_after_s:.2f} s, RSS peak {life.peak_rss_kib / 1024:,.1f} MiB, "
          f"last {life.last_rss_kib / 1024:,.1f} MiB, VmHWM {life.hwm_kib / 1024:,.1f} MiB, CPU {life.cpu_s:.1f} s, "
          f"ended by {life.ended_by or '-'}")
    p(f"  load driver              {100 * r['driver_cores']:.0f}% of one core over the window (this Python process, "
      f"all {len(everyone) - 1} client threads)")

    errors = [(t.role, e) for t in everyone for e in t.errors]
    failures = []
    if verdict.lost:
        failures.append(f"{len(verdict.lost)} acknowledged writes are not in the store, e.g. {verdict.lost[:3]}")
    if errors:
        failures.append(f"{len(errors)} errors, e.g. {errors[:3]}")
    if c["errors"]:
        failures.append(f"{c['errors']} errors in the cockpit-rate phase, e.g. {c['error_samples'][:3]}")
    if verdict.quick_check != "ok":
        failures.append(f"PRAGMA quick_check: {verdict.quick_check}")
    if r["acked_before_kill"] == 0 or acked - r["acked_before_kill"] <= 0:
        failures.append(f"no write acknowledged before the kill or after the restart "
                        f"({r['acked_before_kill']} before, {acked - r['acked_before_kill']} after)")
    if r["stuck_threads"]:
        failures.append(f"{r['stuck_threads']} client threads did not stop within 120 s")
    p(f"  errors                   {len(errors)}" + (" (" + ", ".join(f"{role} {n}" for role, n in
                                                              _by_role(everyone, "errors")) + ")" if errors else ""))
    p(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())} (other work on the machine shares its cores)")
    for failure in failures:
        p(f"FAILED: {failure}")
    if not failures:
        p("ok: no acknowledged write lost, no errors")
    return failures


def _by_role(tallies, what: str) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for t in tallies:
        value = getattr(t, what)
        counts[t.role] = counts.get(t.role, 0) + (len(value) if isinstance(value, list) else value)
    return list(counts.items())


if __name__ == "__main__":
    sys.exit(main())
