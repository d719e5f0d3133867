"""Debian's Prometheus scrapes two `m1nd serve --http` replicas of one store.

Each replica's `GET /metrics` is scraped every second by a Prometheus server of the test's own
(loopback, a temporary data directory), and a series is queried back through Prometheus' own
HTTP API: every target is up, and the calls each replica counted are the calls it was sent, by
verb and decision. Prometheus is Debian's (`.ci/run` installs it); without it this test is
skipped, and under CI (`CI` set) it fails instead. Every wait is bounded.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from pathlib import Path

from harness import debian_program
from http_harness import HttpServer, free_port, procgroup, start, stateless_call, stop

#: The most Prometheus may take to start, scrape both replicas and answer.
SCRAPED_WITHIN_S = 45.0


def query(port: int, promql: str) -> list[dict]:
    """The result vector of an instant query, through Prometheus' HTTP API."""
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(url, timeout=5) as response:
        answer = json.loads(response.read())
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def cockpit_calls(replica: HttpServer, count: int) -> None:
    for n in range(count):
        status, _, body = replica.post(*stateless_call("cockpit", {}, n))
        assert status == 200 and not json.loads(body)["result"].get("isError"), body


def test_prometheus_scrapes_two_replicas_and_answers_for_each(store: Path, tmp_path: Path) -> None:
    binary = debian_program("prometheus")
    replicas = [start(store, logs=tmp_path), start(store, logs=tmp_path)]
    prometheus = None
    try:
        # Replica a is sent one cockpit call, b two: the counts tell them apart.
        for n, replica in enumerate(replicas):
            cockpit_calls(replica, n + 1)
        targets = ", ".join(f'"127.0.0.1:{r.port}"' for r in replicas)
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"scrape_configs:\n  - job_name: m1nd\n    static_configs:\n      - targets: [{targets}]\n"
        )
        port = free_port()
        log = tmp_path / "prometheus.log"
        with open(log, "wb") as errlog:
            prometheus = procgroup.spawn(
                [
                    binary,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'prometheus-data'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                ],
                stdin=None,
                stdout=errlog,
                stderr=errlog,
            )
        series = 'm1nd_calls_total{verb="cockpit",decision="answered"}'
        deadline = time.monotonic() + SCRAPED_WITHIN_S
        while True:
            assert prometheus.poll() is None, log.read_text()[-3000:]
            try:
                up = query(port, 'up{job="m1nd"}')
                counted = query(port, series)
            except OSError:
                up, counted = [], []
            if len(up) == 2 and all(s["value"][1] == "1" for s in up) and len(counted) == 2:
                break
            assert time.monotonic() < deadline, (up, counted, log.read_text()[-3000:])
            time.sleep(0.5)
        by_target = {s["metric"]["instance"]: float(s["value"][1]) for s in counted}
        assert by_target == {f"127.0.0.1:{r.port}": float(n + 1) for n, r in enumerate(replicas)}, by_target
        versions = query(port, "m1nd_store_version_read")
        assert len({s["value"][1] for s in versions}) == 1, f"two replicas of one store read one version: {versions}"
    finally:
        if prometheus is not None:
            procgroup.stop(prometheus)
        for replica in replicas:
            stop(replica)
