"""What the official SDK's check of `structuredContent` against the cockpit's `outputSchema` costs,
and what other exact shapes of the schema would cost.

The SDK (mcp 2.x) compiles a tool's output schema once and, on every `call_tool`, runs the
compiled `jsonschema` validator over the answer's `structuredContent` (`validate_tool_result`).
This bench takes the schema and a root answer from a real `m1nd serve` on a fresh demo store and
times that same validation, in this process, for the schema as served (its entries' "exactly one
of `label` and `item`" written as two shapes that exclude each other, under `anyOf`) and for
variants: without its descriptions, with that rule written as a `oneOf` (as it was served before),
without the rule (no longer exact), and `{"type": "object"}` (the floor: no schema work at all). Every variant must accept the answer. A `ping` through the
SDK is timed in the same run as the yardstick.

    tests/e2e/run.sh bench-validation [--release] [--n 2000]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "lib"))
import quiet  # noqa: E402  (refuses to measure on a busy machine)


def without_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: without_descriptions(v) for k, v in node.items() if not (k == "description" and isinstance(v, str))}
    if isinstance(node, list):
        return [without_descriptions(v) for v in node]
    return node


def variants(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    bare = without_descriptions(schema)
    shapes = bare["properties"]["entries"]["items"]["anyOf"]
    properties = {k: v for shape in shapes for k, v in shape["properties"].items()}
    one_of = copy.deepcopy(bare)
    one_of["properties"]["entries"]["items"] = {
        "type": "object",
        "properties": properties,
        "required": ["select"],
        "oneOf": [{"required": ["label"]}, {"required": ["item"]}],
        "additionalProperties": False,
    }
    loose = copy.deepcopy(one_of)
    del loose["properties"]["entries"]["items"]["oneOf"]
    return {
        "as served (two exclusive shapes, anyOf)": schema,
        "without descriptions": bare,
        "the same rule as a oneOf (served before)": one_of,
        "without the label/item rule (not exact)": loose,
        '{"type": "object"} (the floor)': {"type": "object"},
    }


async def fetch(n_pings: int) -> tuple[dict[str, Any], dict[str, Any], float]:
    """The cockpit's schema, a root answer's structuredContent, and the SDK's ping p50 in seconds."""
    with tempfile.TemporaryDirectory(prefix="m1nd-bench-validation-") as tmp:
        store = harness.init_store(Path(tmp) / "store")
        async with harness.serve(store) as server:
            session = server.session
            tools = await session.list_tools()
            schema = next(t for t in tools.tools if t.name == "cockpit").output_schema
            result = await session.call_tool("cockpit", {})
            times = []
            for _ in range(n_pings):
                start = time.perf_counter()
                await session.send_ping()
                times.append(time.perf_counter() - start)
            times.sort()
            return schema, result.structured_content, times[len(times) // 2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="validations timed per variant (best of three)")
    args = parser.parse_args()
    load = quiet.require_quiet("bench_validation")
    from jsonschema import exceptions
    from jsonschema.validators import validator_for
    from referencing import Registry

    schema, answer, ping = anyio.run(fetch, 300)
    print(f"SDK ping p50 {ping * 1e3:.3f} ms; root answer {len(str(answer))} characters; load average {quiet.describe(load)}")
    for name, variant in variants(schema).items():
        cls = validator_for(variant)
        cls.check_schema(variant)
        validator = cls(variant, registry=Registry())
        if exceptions.best_match(validator.iter_errors(answer)) is not None:
            print(f"{name}: rejects the answer", file=sys.stderr)
            return 1
        best = min(timeit.repeat(lambda: exceptions.best_match(validator.iter_errors(answer)), number=args.n, repeat=3))
        each = best / args.n
        print(f"{name:<42} {each * 1e3:6.3f} ms a validation  {each / ping:5.2f}x a ping")
    return 0


if __name__ == "__main__":
    sys.exit(main())
