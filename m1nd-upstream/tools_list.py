"""Write schemas.json: each tool's inputSchema as m1nd-mcp's own server lists it.

Run by regenerate.sh with the built `m1nd-mcp` binary and the release it is. It starts the
binary once over stdio, in an empty scratch directory with its own HOME (so it reads and
writes nothing of the caller's), with M1ND_TOOL_TIER=full so that `tools/list` gives the
whole registry, not the curated core. Names, types, enums, bounds, defaults and `required`
are facts and are kept; every `description` string is upstream's prose and is left out.

    python3 tools_list.py BINARY VERSION OUT
"""

import json
import os
import select
import subprocess
import sys
import tempfile

TIMEOUT_S = 60


def without_prose(value):
    """`value` with every `description` whose value is text removed (a property *named*
    `description` has a schema, an object, as its value, and is kept)."""
    if isinstance(value, dict):
        return {
            key: without_prose(item)
            for key, item in value.items()
            if not (key == "description" and isinstance(item, str))
        }
    if isinstance(value, list):
        return [without_prose(item) for item in value]
    return value


def listed(binary: str) -> tuple[dict, list]:
    with tempfile.TemporaryDirectory(prefix="m1nd-mcp-") as scratch:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": scratch, "M1ND_TOOL_TIER": "full"}
        with open(os.path.join(scratch, "stderr"), "w") as errors:
            server = subprocess.Popen(
                [binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env, cwd=scratch
            )
            try:

                def send(message: dict) -> None:
                    server.stdin.write((json.dumps(message) + "\n").encode())
                    server.stdin.flush()

                def answer(want: int) -> dict:
                    while True:
                        ready, _, _ = select.select([server.stdout], [], [], TIMEOUT_S)
                        if not ready:
                            sys.exit(f"tools_list: no answer to request {want} within {TIMEOUT_S} s")
                        line = server.stdout.readline()
                        if not line:
                            sys.exit("tools_list: the server ended before answering")
                        message = json.loads(line)
                        if message.get("id") == want:
                            return message

                send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "m1nd-upstream", "version": "0"}}})
                info = answer(0)["result"]["serverInfo"]
                send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                tools = answer(1)["result"]["tools"]
            finally:
                server.kill()
                server.wait()
    return info, tools


def main() -> None:
    binary, version, out = sys.argv[1:4]
    info, tools = listed(binary)
    schemas = {
        "schema": "m1nd-upstream-schemas-v1",
        "m1nd_mcp": version,
        "server_info": {"name": info.get("name"), "version": info.get("version")},
        "tools": [{"name": tool["name"], "inputSchema": without_prose(tool["inputSchema"])} for tool in tools],
    }
    with open(out, "w") as file:
        json.dump(schemas, file, indent=2, sort_keys=True)
        file.write("\n")


if __name__ == "__main__":
    main()
