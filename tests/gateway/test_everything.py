"""`m1nd gateway` in front of @modelcontextprotocol/server-everything (from npm, kebab-case tool names),
over stdio and over `--http`, with the imported-then-reviewed policy in policies/everything: every
declared tool is listed under its exact upstream name with its whole definition; each read answers in
every spelling that folds to it (kebab, snake, upper, camel, ...) with the upstream's own answer; each
tool that changes state is refused in every spelling in a read-only session; and the upstream's
prompts, resources and templates are listed, read, got and completed exactly as the policy declares
them, with every URI that slips past a declared template refused.

Calls the suite leaves out, and why: nothing is left out of the reads. trigger-long-running-operation
sleeps 10 s by default, so it is called with a 0.05 s duration. The tools that need the client's
sampling, elicitation or roots (trigger-sampling-request, trigger-elicitation-request, get-roots-list)
are listed by the upstream only to a client that offers them, and the reviewed policy offers none
(`client_capabilities`): import names them and leaves them out, and a copy of the policy that offers
them relays each request to the client of the call. The ones that also need tasks or URL elicitation
(the gateway offers neither) stay unlisted. simulate-research-query (a task that may elicit) is
denied.

Expectations come from the policy files, never from a list written here; the per-tool arguments and
answers below are checked against the policy's reads (a drift test)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CreateMessageResult,
    ElicitResult,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    Root,
    TextContent,
)

from gateway_harness import (
    HERE,
    POLICIES,
    gateway,
    hints_of,
    m1nd_bin,
    policy,
    served_hints,
    set_mode,
    start_http,
    stop,
    text_of,
)
from test_names import spellings

pytestmark = pytest.mark.anyio

EVERYTHING = policy("everything")
READS = [v for v in EVERYTHING["verbs"] if v not in EVERYTHING["denied"]]
# What a definition carries that the gateway serves as the upstream wrote it (annotations are the policy's).
SERVED = ["title", "description", "input_schema", "output_schema", "icons", "meta"]
INVALID_PARAMS = -32602
PROBE = "seen-through-the-gateway"


def everything_server() -> list[str]:
    """@modelcontextprotocol/server-everything (installed by run.sh with npm ci), over stdio."""
    script = HERE / "npm" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if not script.is_file():
        raise FileNotFoundError(f"{script} is missing; run tests/gateway/run.sh, which installs it with npm ci")
    node = shutil.which("node")
    assert node, "node is not on PATH"
    return [node, str(script), "stdio"]


# The gateway's own secrets, and another fleet member's: in the gateway's environment, never in an
# upstream's. The HTTP gateway gets no M1ND_HTTP_TOKEN (it would then want it from its clients).
SECRETS = {"M1ND_HTTP_TOKEN": "token-of-the-gateway-itself", "FILES_TOKEN": "token-of-another-upstream"}
# What a started upstream may see: the official SDKs' default variables, and what --upstream-env names.
INHERITED = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
UPSTREAM_ENV = ["--upstream-env", "EVERYTHING_PROBE"]


def environment(*, http: bool = False) -> dict[str, str]:
    """The gateway's environment: PATH, the value get-env must show, and secrets it must not."""
    secrets = {k: v for k, v in SECRETS.items() if not (http and k == "M1ND_HTTP_TOKEN")}
    return {"PATH": os.environ["PATH"], "EVERYTHING_PROBE": PROBE, **secrets}


def shows_only_what_it_may(result: Any) -> bool:
    """get-env's answer (the upstream's whole environment, as JSON) holds the named probe, and no
    variable besides the inherited ones and the named one: none of the gateway's secrets."""
    seen = json.loads(text_of(result))
    assert set(seen) <= INHERITED | {"EVERYTHING_PROBE"}, f"the upstream sees {sorted(set(seen) - INHERITED)}"
    assert not any(secret in text_of(result) for secret in SECRETS.values()), "a secret reached the upstream"
    return seen.get("EVERYTHING_PROBE") == PROBE


def test_a_named_variable_that_is_not_set_stops_the_gateway_naming_it(tmp_path: Path) -> None:
    """--upstream-env promises the upstream a variable: one that is not set is refused before start."""
    command = [str(m1nd_bin()), "gateway", "--policy", str(POLICIES / "everything")]
    command += ["--upstream-env", "M1ND_TEST_NEVER_SET", "--", *everything_server()]
    done = subprocess.run(
        command, input="", capture_output=True, text=True, timeout=60, env=environment(), cwd=tmp_path
    )
    assert done.returncode != 0, done.stderr
    assert "`M1ND_TEST_NEVER_SET` is named to be passed to the upstream" in done.stderr, done.stderr


def blocks(result: Any, kind: str) -> list[Any]:
    return [b for b in result.content if getattr(b, "type", None) == kind]


# Each read: arguments, and what of the upstream's answer proves it was that tool that answered.
CALLS: dict[str, tuple[dict[str, object], Callable[[Any], bool]]] = {
    "echo": ({"message": "hello"}, lambda r: text_of(r) == "Echo: hello"),
    "get-sum": ({"a": 2, "b": 3}, lambda r: text_of(r) == "The sum of 2 and 3 is 5."),
    "get-annotated-message": ({"messageType": "success"}, lambda r: "Operation completed successfully" in text_of(r)),
    "get-env": ({}, shows_only_what_it_may),
    "get-resource-links": ({"count": 2}, lambda r: len(blocks(r, "resource_link")) == 2),
    "get-resource-reference": (
        {"resourceType": "Text", "resourceId": 1},
        lambda r: any(str(b.resource.uri).endswith("/text/1") for b in blocks(r, "resource")),
    ),
    "get-structured-content": (
        {"location": "Chicago"},
        lambda r: set(r.structured_content or {}) == {"temperature", "conditions", "humidity"},
    ),
    "get-tiny-image": ({}, lambda r: [b.mime_type for b in blocks(r, "image")] == ["image/png"]),
    "trigger-long-running-operation": (
        {"duration": 0.05, "steps": 1},
        lambda r: "Long running operation completed" in text_of(r),
    ),
}
# Arguments each denied tool would run with if it reached the upstream.
DENIED_ARGUMENTS: dict[str, dict[str, object]] = {
    "gzip-file-as-resource": {"name": "x.gz", "data": "data:text/plain;base64,eA=="},
    "toggle-simulated-logging": {},
    "toggle-subscriber-updates": {},
    "simulate-research-query": {"topic": "gateways"},
}


def four_spellings(verb: str) -> list[str]:
    """kebab (the upstream's own), snake, upper and camel: the shapes the HTTP tests try."""
    words = verb.split("-")
    return [verb, "_".join(words), verb.upper(), words[0] + "".join(w.title() for w in words[1:])]


def test_the_calls_cover_every_read_and_every_denied_tool() -> None:
    assert sorted(CALLS) == sorted(READS)
    assert sorted(DENIED_ARGUMENTS) == sorted(EVERYTHING["denied"])
    assert all("-" in v for v in EVERYTHING["verbs"] if v != "echo"), "server-everything names its tools in kebab-case"


def test_import_takes_every_tool_under_its_exact_name_and_matches_the_reviewed_pins(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(out), "--read-only-from-hints", "--", *everything_server()],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "skipped" not in done.stdout + done.stderr
    imported = policy(out.resolve())
    assert imported["verbs"] == EVERYTHING["verbs"], "the upstream's tools or definitions differ from the reviewed policy"
    assert sorted(imported["denied"]) == sorted(EVERYTHING["denied"])


# The tools the upstream lists only to a client that offers a capability, and the one each needs.
NEEDS = {"trigger-sampling-request": "sampling", "trigger-elicitation-request": "elicitation", "get-roots-list": "roots"}


def test_import_names_each_tool_that_needs_a_client_capability_and_leaves_it_out(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    done = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--policy", str(out), "--", *everything_server()],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert f"left out: the upstream lists {len(NEEDS)} more tools to a client that offers what this policy does not" in done.stdout
    for tool, capability in NEEDS.items():
        assert f"  - `{tool}` needs `{capability}`\n" in done.stdout, done.stdout
    assert not set(NEEDS) & set(policy(out.resolve())["verbs"]), "a tool that needs what is not offered is not declared"


def offering(tmp_path: Path, capabilities: list[str]) -> Path:
    """A read-write copy of the reviewed policy that offers `capabilities` upstream and declares the tools
    that need them, pasted from what `policy import --update` proposes, as a reviewer would."""
    policy_dir = set_mode(shutil.copytree(POLICIES / "everything", tmp_path / "offering"), "read-write")
    tools = policy_dir / "tools.toml"
    offered = ", ".join(f'"{c}"' for c in capabilities)
    tools.write_text(tools.read_text().replace("\nmode = ", f"\nclient_capabilities = [{offered}]\nmode = ", 1))
    update = subprocess.run(
        [str(m1nd_bin()), "policy", "import", "--update", "--policy", str(policy_dir), "--", *everything_server()],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert update.returncode == 0, update.stdout + update.stderr
    lines = update.stdout.splitlines()
    for tool in (t for t, c in NEEDS.items() if c in capabilities):
        start = lines.index(f"    [verbs.{tool}]")
        block = [l[4:] for l in itertools.takewhile(lambda l: l.startswith("    "), lines[start:])]
        with tools.open("a") as f:
            f.write("\n" + "\n".join(block) + "\n")
    check = subprocess.run([str(m1nd_bin()), "policy", "check", str(policy_dir)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return policy_dir


async def test_what_the_policy_offers_is_relayed_to_the_client_of_the_call(tmp_path: Path) -> None:
    asked: dict[str, Any] = {}

    async def sampling(_context: Any, params: Any) -> CreateMessageResult:
        asked["sampling"] = params
        return CreateMessageResult(role="assistant", content=TextContent(text="sampled by the client"), model="m")

    async def elicitation(_context: Any, params: Any) -> ElicitResult:
        asked["elicitation"] = params
        return ElicitResult(action="accept", content={"name": "Ada"})

    async def roots(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri="file:///srv/work", name="work")])

    callbacks = {"sampling_callback": sampling, "elicitation_callback": elicitation, "list_roots_callback": roots}
    policy_dir = offering(tmp_path, list(dict.fromkeys(NEEDS.values())))
    async with gateway(policy_dir, everything_server(), log_dir=tmp_path, callbacks=callbacks) as gw:
        listed = {t.name for t in (await gw.session.list_tools()).tools}
        assert set(NEEDS) <= listed, listed
        sampled = await gw.session.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 5})
        assert not sampled.is_error and "sampled by the client" in text_of(sampled), text_of(sampled)
        assert "hello" in asked["sampling"].messages[0].content.text
        elicited = await gw.session.call_tool("trigger-elicitation-request", {})
        assert not elicited.is_error and "- Name: Ada" in text_of(elicited), text_of(elicited)
        listed_roots = await gw.session.call_tool("get-roots-list", {})
        assert "file:///srv/work" in text_of(listed_roots), text_of(listed_roots)


async def test_a_client_that_does_not_offer_it_is_never_asked(tmp_path: Path) -> None:
    policy_dir = offering(tmp_path, ["sampling"])
    async with gateway(policy_dir, everything_server(), log_dir=tmp_path) as gw:
        refused = await gw.session.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 5})
        told = text_of(refused)
        assert refused.is_error, told
        assert "the upstream's `sampling/createMessage` request was refused" in told, told
        assert "the client of the session whose call is in flight does not offer `sampling`" in told, told
        listed = {t.name for t in (await gw.session.list_tools()).tools}
        assert "trigger-elicitation-request" not in listed, "elicitation is not offered, so the upstream lists no such tool"


async def upstream_tools() -> dict[str, Any]:
    """The upstream's own tools/list, straight from the upstream."""
    command = everything_server()
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params, errlog=subprocess.DEVNULL) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return {t.name: t for t in (await session.list_tools()).tools}


async def test_every_declared_tool_is_listed_under_its_exact_name_with_its_whole_definition(tmp_path: Path) -> None:
    writable = set_mode(shutil.copytree(POLICIES / "everything", tmp_path / "policy"), "read-write")
    direct = await upstream_tools()
    assert any(t.output_schema for t in direct.values()), "the upstream declares no outputSchema any more"
    async with gateway(writable, everything_server(), log_dir=tmp_path) as gw:
        listed = {t.name: t for t in (await gw.session.list_tools()).tools}
    assert set(listed) == set(EVERYTHING["verbs"])
    for name, tool in listed.items():
        for field in SERVED:
            assert getattr(tool, field) == getattr(direct[name], field), f"{name}.{field}"
        assert hints_of(tool) == served_hints(direct[name], EVERYTHING, name), name


async def test_execution_is_forwarded_as_the_upstream_declares_it(tmp_path: Path) -> None:
    writable = set_mode(shutil.copytree(POLICIES / "everything", tmp_path / "policy"), "read-write")
    direct = await upstream_tools()
    assert all(t.execution for t in direct.values())
    async with gateway(writable, everything_server(), log_dir=tmp_path) as gw:
        listed = {t.name: t for t in (await gw.session.list_tools()).tools}
    for name, tool in listed.items():
        assert tool.execution == direct[name].execution, name


async def test_reads_answer_in_every_spelling_and_writes_are_refused_in_every_spelling(tmp_path: Path) -> None:
    async with gateway(
        POLICIES / "everything", everything_server(), log_dir=tmp_path, env=environment(), extra=UPSTREAM_ENV
    ) as gw:
        listed = {t.name for t in (await gw.session.list_tools()).tools}
        assert listed == set(READS)
        for verb, (arguments, answered) in CALLS.items():
            for name in spellings(verb):
                result = await gw.session.call_tool(name, arguments)
                assert not result.is_error and answered(result), f"{name!r}: {result}"
        for verb, arguments in DENIED_ARGUMENTS.items():
            for name in spellings(verb):
                refused = await gw.session.call_tool(name, arguments)
                message = text_of(refused)
                assert refused.is_error, f"{name!r} was not refused: {message}"
                assert f"read_only_denied.toml lists `{verb}` in `tools`" in message, f"{name!r}: {message}"
        # The session survives every refusal.
        ok = await gw.session.call_tool("get-sum", {"a": 1, "b": 1})
        assert text_of(ok) == "The sum of 1 and 1 is 2."


async def expect_refused(call: Any, code: int, *words: str) -> None:
    """The request fails with a JSON-RPC error `code` whose message holds every one of `words`."""
    with pytest.raises(MCPError) as refused:
        await call
    assert refused.value.code == code, refused.value
    for word in words:
        assert word in str(refused.value), (word, refused.value)


async def upstream_surfaces() -> dict[str, Any]:
    """The upstream's own prompts, resources and templates, and a few of its answers, straight from it."""
    command = everything_server()
    async with stdio_client(StdioServerParameters(command=command[0], args=command[1:]), errlog=subprocess.DEVNULL) as (
        read,
        write,
    ):
        async with ClientSession(read, write) as direct:
            caps = (await direct.initialize()).capabilities
            resources = (await direct.list_resources()).resources
            return {
                "caps": caps,
                "prompts": {p.name for p in (await direct.list_prompts()).prompts},
                "resources": {str(r.uri) for r in resources},
                "templates": {t.uri_template for t in (await direct.list_resource_templates()).resource_templates},
                "contents": {str(r.uri): (await direct.read_resource(str(r.uri))).contents for r in resources},
            }


SLIPS = [
    # Past the text template's literal: a dot segment, encoded dots and slashes, another case, a query.
    "demo://resource/dynamic/text/../../static/document/structure.md",
    "demo://resource/dynamic/text/..",
    "demo://resource/dynamic/text/%2e%2e%2fstatic",
    "demo://resource/dynamic/text/1%2F..%2F..%2Fstatic%2Fdocument%2Fstructure.md",
    "DEMO://resource/dynamic/text/1",
    "demo://resource/DYNAMIC/text/1",
    "demo://resource/dynamic/text/1?x=../../static/document/structure.md",
    "demo://resource/dynamic/text/",
]


async def test_prompts_resources_and_templates_follow_the_policy(tmp_path: Path) -> None:
    """Only what tools.toml declares is listed, read, got or completed; everything else the upstream
    offers (a prompt, a resource, a template, each left out on purpose) is hidden and refused, and so
    is every URI that slips past a declared template. The session survives every refusal."""
    direct = await upstream_surfaces()
    assert direct["caps"].resources and direct["caps"].prompts and direct["caps"].completions
    declared = {kind: set(EVERYTHING[kind]) for kind in ("prompts", "resources", "templates")}
    for kind in declared:
        assert declared[kind] < direct[kind], f"the policy must leave some upstream {kind} out, and declare only real ones"
    async with gateway(POLICIES / "everything", everything_server(), log_dir=tmp_path) as gw:
        session = gw.session
        caps = session.server_capabilities
        assert caps is not None and caps.resources and caps.prompts and caps.completions and caps.logging is None
        assert {p.name for p in (await session.list_prompts()).prompts} == declared["prompts"]
        assert {str(r.uri) for r in (await session.list_resources()).resources} == declared["resources"]
        listed_templates = (await session.list_resource_templates()).resource_templates
        assert {t.uri_template for t in listed_templates} == declared["templates"]

        for uri in declared["resources"]:
            assert (await session.read_resource(uri)).contents == direct["contents"][uri], uri
        text = (await session.read_resource("demo://resource/dynamic/text/7")).contents
        assert text and "7" in text[0].text
        for uri in direct["resources"] - declared["resources"]:
            await expect_refused(session.read_resource(uri), INVALID_PARAMS, "does not declare under `[resources]`")
        await expect_refused(
            session.read_resource("demo://resource/dynamic/blob/1"), INVALID_PARAMS, "neither a resource", "[templates]"
        )
        for slip in SLIPS:
            await expect_refused(session.read_resource(slip), INVALID_PARAMS, "nothing was sent to the upstream")

        for spelling in ("simple-prompt", "simple_prompt", "SIMPLE-PROMPT", "simplePrompt"):
            got = await session.get_prompt(spelling)
            assert got.messages and "simple prompt" in got.messages[0].content.text.lower(), spelling
        args = await session.get_prompt("args-prompt", {"city": "Lisbon"})
        assert "Lisbon" in args.messages[0].content.text
        for name in direct["prompts"] - declared["prompts"]:
            await expect_refused(session.get_prompt(name), INVALID_PARAMS, "does not declare under `[prompts]`")
        await expect_refused(session.get_prompt("simple-promt"), INVALID_PARAMS, "did you mean `simple-prompt`")

        completed = await session.complete(PromptReference(name="completable-prompt"), {"name": "department", "value": "E"})
        assert "Engineering" in completed.completion.values
        undeclared = ResourceTemplateReference(uri="demo://resource/dynamic/blob/{resourceId}")
        await expect_refused(session.complete(undeclared, {"name": "resourceId", "value": "1"}), INVALID_PARAMS, "completion")
        await expect_refused(session.subscribe_resource("demo://resource/dynamic/text/.."), INVALID_PARAMS)

        # The session survives.
        assert text_of(await session.call_tool("echo", {"message": "still here"})) == "Echo: still here"


async def test_a_subscription_hears_the_updates_of_its_resource_only(tmp_path: Path) -> None:
    """server-everything sends `notifications/resources/updated` every 5 s for each URI a session
    subscribed to, once toggle-subscriber-updates is on (a write: a read-write copy of the policy)."""
    writable = set_mode(shutil.copytree(POLICIES / "everything", tmp_path / "policy"), "read-write")
    uri = sorted(EVERYTHING["resources"])[0]
    updated: list[str] = []

    async def heard(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updated.append(str(root.params.uri))

    async with gateway(writable, everything_server(), log_dir=tmp_path, message_handler=heard) as gw:
        await gw.session.subscribe_resource(uri)
        assert not (await gw.session.call_tool("toggle-subscriber-updates", {})).is_error
        deadline = time.monotonic() + 15
        while not updated and time.monotonic() < deadline:
            await anyio.sleep(0.1)
        assert updated and set(updated) == {uri}, updated
        await gw.session.unsubscribe_resource(uri)


def start_everything_http(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    command = [str(m1nd_bin()), "gateway", "--policy", str(POLICIES / "everything"), "--http", "127.0.0.1:0"]
    command += [*UPSTREAM_ENV, "--", *everything_server()]
    return start_http(command, tmp_path / "gateway-http.stderr", environment(http=True))


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_over_http_execution_is_forwarded_as_the_upstream_declares_it(tmp_path: Path, mode: str) -> None:
    direct = await upstream_tools()
    process, url = start_everything_http(tmp_path)
    try:
        async with Client(url, mode=mode, cache=None) as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
    finally:
        stop(process)
    assert set(listed) == set(READS)
    for name, tool in listed.items():
        assert tool.execution == direct[name].execution, name


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_over_http_reads_answer_writes_are_refused_and_surfaces_follow_the_policy(tmp_path: Path, mode: str) -> None:
    process, url = start_everything_http(tmp_path)
    try:
        async with Client(url, mode=mode, cache=None) as c:
            assert {t.name for t in (await c.list_tools()).tools} == set(READS)
            for verb, (arguments, answered) in CALLS.items():
                for name in four_spellings(verb):
                    result = await c.call_tool(name, arguments)
                    assert not result.is_error and answered(result), f"{name!r}: {result}"
            for verb, arguments in DENIED_ARGUMENTS.items():
                for name in four_spellings(verb):
                    refused = await c.call_tool(name, arguments)
                    message = text_of(refused)
                    assert refused.is_error and f"read_only_denied.toml lists `{verb}` in `tools`" in message, f"{name!r}: {message}"
            if mode == "legacy":
                # A 2026-07-28 client asks for no capabilities: it lists and reads without them.
                caps = c.server_capabilities
                assert caps is not None and caps.resources and caps.prompts, caps
            assert {p.name for p in (await c.list_prompts()).prompts} == set(EVERYTHING["prompts"])
            assert {str(r.uri) for r in (await c.list_resources()).resources} == set(EVERYTHING["resources"])
            assert "7" in (await c.read_resource("demo://resource/dynamic/text/7")).contents[0].text
            for slip in SLIPS:
                await expect_refused(c.read_resource(slip), INVALID_PARAMS, "nothing was sent to the upstream")
    finally:
        stop(process)


LONG_RUN = "trigger-long-running-operation"
STEPS = 3


async def test_a_call_s_progress_reaches_the_client_that_asked_over_stdio(tmp_path: Path) -> None:
    assert LONG_RUN in READS
    heard: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total))

    async with gateway(
        POLICIES / "everything", everything_server(), log_dir=tmp_path, env=environment(), extra=UPSTREAM_ENV
    ) as gw:
        arguments = {"duration": 0.3, "steps": STEPS}
        done = await gw.session.call_tool(LONG_RUN, arguments, progress_callback=on_progress)
        assert not done.is_error, text_of(done)
        quiet = await gw.session.call_tool(LONG_RUN, arguments)
        assert not quiet.is_error, text_of(quiet)
    assert [progress for progress, _ in heard] == [float(n) for n in range(1, STEPS + 1)], heard
    assert all(total == STEPS for _, total in heard), heard


async def test_over_http_each_session_hears_only_its_own_call_s_progress(tmp_path: Path) -> None:
    """Two legacy sessions call at once; each client picks its own progress token (the SDK uses the
    request id, so both pick the same one), and each hears its own call's steps exactly once."""
    process, url = start_everything_http(tmp_path)
    heard: dict[str, list[float]] = {"a": [], "b": []}

    async def call(who: str, steps: int) -> None:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard[who].append(progress)

        async with Client(url, mode="legacy", cache=None) as c:
            done = await c.call_tool(LONG_RUN, {"duration": 0.4, "steps": steps}, progress_callback=on_progress)
            assert not done.is_error, text_of(done)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "a", STEPS)
            tg.start_soon(call, "b", STEPS + 1)
    finally:
        stop(process)
    assert heard["a"] == [float(n) for n in range(1, STEPS + 1)], heard
    assert heard["b"] == [float(n) for n in range(1, STEPS + 2)], heard
