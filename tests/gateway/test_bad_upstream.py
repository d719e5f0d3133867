"""An upstream that dies, hangs or writes junk: each call gets a clear error and the downstream
session goes on; an upstream that is not an MCP server stops the gateway with a clear error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from gateway_harness import HERE, gateway, m1nd_bin, set_mode, text_of

pytestmark = pytest.mark.anyio

UPSTREAM = [sys.executable, str(HERE / "bad_upstream.py")]


def imported(tmp_path: Path) -> Path:
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return set_mode(policy, "read-write")  # `work` is proposed denied; these sessions call it


@pytest.mark.parametrize(("mode", "says"), [("die", "the upstream did not answer"), ("hang", "within 1 s"), ("junk", None)])
async def test_a_misbehaving_upstream_costs_one_call_not_the_session(tmp_path: Path, mode: str, says: str | None) -> None:
    policy = imported(tmp_path)
    env = {**os.environ, "BAD_MODE": mode}
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, extra=["--call-timeout", "1"], env=env,
                       upstream_env=("BAD_MODE",)) as gw:
        result = await gw.session.call_tool("work", {})
        if says is None:
            assert not result.is_error and "work done" in text_of(result), text_of(result)
        else:
            assert result.is_error and says in text_of(result), text_of(result)
        # The session survives: listing still answers, and so does every later call.
        assert {t.name for t in (await gw.session.list_tools()).tools} == {"work", "echo", "ask_client"}
        after = await gw.session.call_tool("echo", {})
        if mode == "die":
            assert after.is_error and "upstream" in text_of(after), text_of(after)
        else:
            assert not after.is_error and "echo done" in text_of(after), text_of(after)


def test_an_upstream_that_is_not_an_mcp_server_stops_the_gateway_with_a_clear_error(tmp_path: Path) -> None:
    policy = imported(tmp_path)
    for upstream, says in ((["false"], "did not complete the MCP handshake"), (["/does/not/exist"], "cannot start the upstream")):
        done = subprocess.run(
            [str(m1nd_bin()), "gateway", "--policy", str(policy), "--", *upstream],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2 and says in done.stderr, (upstream, done.stderr)


@pytest.mark.parametrize(("listing", "says"), [
    ("endless", "went past the pages a listing may take (100)"),
    ("crowd", "went past the tools a listing may hold (10000)"),
])
def test_a_listing_without_end_is_refused_with_its_bound(tmp_path: Path, listing: str, says: str) -> None:
    """An upstream that pages forever, or lists more tools than any policy reviews, is refused at
    import and at the gateway's start, naming the bound, instead of growing the gateway's memory."""
    env = {**os.environ, "BAD_LIST": listing}
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--upstream-env", "BAD_LIST", "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )
    assert done.returncode != 0 and says in done.stderr, done.stderr
    assert not policy.exists(), "nothing is written from a listing past its bounds"
    started = subprocess.run(
        [str(m1nd_bin()), "gateway", "--policy", str(imported(tmp_path / "sound")), "--upstream-env", "BAD_LIST",
         "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )
    assert started.returncode != 0 and says in started.stderr, started.stderr


async def test_requests_from_the_upstream_to_a_client_are_refused_with_why(tmp_path: Path) -> None:
    """Sampling, roots and elicitation requests never reach a client under a policy that offers none of
    them (an import offers none), even from an upstream that asks without being offered: the gateway
    refuses them, and the upstream hears why and what would change it."""
    policy = imported(tmp_path)
    async with gateway(policy, UPSTREAM, log_dir=tmp_path) as gw:
        told = text_of(await gw.session.call_tool("ask_client", {}))
    for what in ("sampling", "roots", "elicitation"):
        line = next(line for line in told.splitlines() if line.startswith(f"{what}:"))
        assert "refused" in line and f"the gateway policy does not offer `{what}` to this upstream" in line, told
        assert f'add "{what}" to `client_capabilities` in tools.toml' in line, told


async def test_a_thousand_resources_are_served_as_the_policy_declares(tmp_path: Path) -> None:
    """Import proposes all 1,000 resources and the template; the gateway lists them and reads within
    the template, and refuses a URI that slips past it. A policy that keeps only the template lists
    no resource, yet reads through it."""
    env = {**os.environ, "BAD_RESOURCES": "thousand"}
    policy = tmp_path / "policy"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(policy), "--upstream-env", "BAD_RESOURCES", "--",
         *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )
    assert done.returncode == 0, done.stderr
    tools = (set_mode(policy, "read-write") / "tools.toml").read_text()
    assert tools.count("[resources.") == 1000 and '[templates."bad://item/{id}"]' in tools
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, env=env, upstream_env=("BAD_RESOURCES",)) as gw:
        listed = (await gw.session.list_resources()).resources
        assert len(listed) == 1000
        assert (await gw.session.read_resource("bad://item/999")).contents[0].text == "read bad://item/999"
        for slip in ("bad://item/../secret", "bad://item/1/2", "bad://item/%2e%2e", "BAD://item/1"):
            with pytest.raises(MCPError) as refused:
                await gw.session.read_resource(slip)
            assert "nothing was sent to the upstream" in str(refused.value), refused.value
        assert text_of(await gw.session.call_tool("echo", {})) == "echo done"
    # Only the template: nothing is listed, every item still reads through it.
    kept = "\n\n".join(b for b in tools.split("\n\n") if not b.lstrip().startswith("[resources."))
    (policy / "tools.toml").write_text(kept)
    async with gateway(policy, UPSTREAM, log_dir=tmp_path, env=env, upstream_env=("BAD_RESOURCES",)) as gw:
        assert (await gw.session.list_resources()).resources == []
        assert (await gw.session.read_resource("bad://item/7")).contents[0].text == "read bad://item/7"


def test_a_crowd_of_resources_is_refused_with_its_bound(tmp_path: Path) -> None:
    env = {**os.environ, "BAD_RESOURCES": "crowd"}
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(tmp_path / "policy"), "--upstream-env", "BAD_RESOURCES",
         "--", *UPSTREAM],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env,
    )
    assert done.returncode != 0 and "the resources a listing may hold (10000)" in done.stderr, done.stderr
    assert not (tmp_path / "policy").exists()
