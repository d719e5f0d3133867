"""An identity per agent on two `m1nd serve --http` replicas of one PostgreSQL store, behind
HAProxy (deploy/haproxy.cfg), with the keys at a `jwks_uri` (a JWKS published on loopback).

Proven here, through the balancer and on each replica:
- the official Python SDK, sending an agent's access token, works through the balancer, and
  each replica counts the calls under that agent's name in `/metrics`;
- an expired, wrong-audience, wrong-key and `alg: none` token are each refused with RFC 6750's
  challenge, and a write refused so changes nothing in the database;
- one line in the shared revoked-agents file shuts one agent out on both replicas, while the
  others go on;
- a key rotated at the authorization server is taken by both replicas without a restart.

Without a server these tests are skipped; under CI (`CI` set) they fail instead.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import pg_store
from http_harness import Balanced, HttpServer, balance, stateless_call
from pg_store import PgLocation
from tokens import AUDIENCE, ISSUER, Publisher, SigningKey, unsigned

pytestmark = pytest.mark.anyio


@pytest.fixture
def keys() -> Iterator[tuple[SigningKey, Publisher]]:
    key = SigningKey("k1")
    publisher = Publisher([key])
    try:
        yield key, publisher
    finally:
        publisher.close()


@pytest.fixture
def agents(pg: PgLocation, tmp_path: Path, keys: tuple[SigningKey, Publisher]) -> Iterator[Balanced]:
    key, publisher = keys
    revoked = tmp_path / "revoked"
    revoked.write_text("# nobody yet\n")
    args = ["--jwks", publisher.url, "--token-issuer", ISSUER, "--token-audience", AUDIENCE,
            "--revoked-agents", str(revoked)]
    with balance(pg, pg, tmp_path, options={"args": args}, check_token=key.mint("balancer")) as b:
        yield b


def post(server: HttpServer, token: str, name: str, arguments: dict, request_id: int = 1) -> tuple[int, dict, dict]:
    """A stateless `tools/call` with `token`; the status, the headers and the JSON answer (if any)."""
    body, headers = stateless_call(name, arguments, request_id)
    status, answer_headers, answer = server.post(body, {**headers, "Authorization": f"Bearer {token}"})
    return status, answer_headers, json.loads(answer) if status == 200 else {"text": answer.decode(errors="replace")}


def metrics(server: HttpServer, token: str) -> str:
    conn = server.connection()
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        assert response.status == 200, response.status
        return response.read().decode()
    finally:
        conn.close()


def agent_requests(text: str, agent: str) -> float:
    found = re.search(rf'^m1nd_agent_requests_total\{{agent="{re.escape(agent)}"\}} (\S+)$', text, re.M)
    return float(found[1]) if found else 0.0


async def test_an_agents_sdk_client_is_named_on_both_replicas(agents: Balanced, keys: tuple[SigningKey, Publisher]) -> None:
    key, _ = keys
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key.mint('ana')}"})
    async with http, Client(streamable_http_client(agents.lb.url, http_client=http), mode="2026-07-28", cache=None) as client:
        for _ in range(8):
            result = await client.call_tool("cockpit", {})
            assert not result.is_error, result
    admin = key.mint("operator")
    for replica in agents.replicas:
        assert agent_requests(metrics(replica, admin), "ana") >= 1, "each replica served ana and named her"


def test_every_bad_token_is_refused_with_the_challenge_and_changes_nothing(
    agents: Balanced, keys: tuple[SigningKey, Publisher], pg: PgLocation
) -> None:
    key, _ = keys
    stranger = SigningKey("k1")  # the same kid, another key
    bad = {
        "expired": key.mint("ana", exp=int(time.time()) - 120),
        "audience": key.mint("ana", aud="https://elsewhere.example/mcp"),
        "signature": stranger.mint("ana"),
        "unsigned": unsigned("ana"),
    }
    for n, (why, token) in enumerate(bad.items()):
        claim = f"written with a bad token ({why})"
        status, headers, answer = post(agents.lb, token, "memorize", {"node_label": "tests", "claims": [{"label": claim}]}, n)
        assert status == 401, (why, status, answer)
        challenge = headers.get("www-authenticate", "")
        assert challenge.startswith("Bearer resource_metadata=") and 'error="invalid_token"' in challenge, (why, challenge)
    assert not {claim for claim in pg_store.claims(pg) if "bad token" in claim}, "a refused write landed"


def test_one_agent_is_revoked_on_both_replicas_and_the_others_go_on(
    agents: Balanced, keys: tuple[SigningKey, Publisher], tmp_path: Path
) -> None:
    key, _ = keys
    ana, bob = key.mint("ana"), key.mint("bob")
    for replica in agents.replicas:
        assert post(replica, bob, "cockpit", {})[0] == 200
    (tmp_path / "revoked").write_text("bob  # left the team\n")
    for replica in agents.replicas:
        status, _, answer = post(replica, bob, "cockpit", {})
        assert status == 401 and "revoked" in answer["text"], (status, answer)
        assert post(replica, ana, "cockpit", {})[0] == 200


def test_a_rotated_key_is_taken_by_both_replicas_without_a_restart(
    agents: Balanced, keys: tuple[SigningKey, Publisher]
) -> None:
    key, publisher = keys
    rotated = SigningKey("k2")
    publisher.publish([rotated])
    for replica in agents.replicas:
        status, _, answer = post(replica, rotated.mint("ana"), "cockpit", {})
        assert status == 200, (status, answer)
        assert post(replica, key.mint("ana"), "cockpit", {})[0] == 401, "the retired key is refused"
