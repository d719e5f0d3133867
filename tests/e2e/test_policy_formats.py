"""`m1nd policy check --format sarif` against the official SARIF 2.1.0 schema (tests/sarif/).

The schema is JSON Schema draft 4; the log must validate as a whole, and its results must be the
same diagnostics, at the same places, as `--format json` reports.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator

import harness

SCHEMA = json.loads((harness.ROOT / "tests" / "sarif" / "sarif-schema-2.1.0.json").read_text())
BROKEN = "tests/ui/policies/many_laws"


def _check(policy: str, fmt: str) -> tuple[int, Any]:
    done = subprocess.run(
        [str(harness.m1nd_bin()), "policy", "check", policy, "--format", fmt],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=harness.ROOT,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, json.loads(done.stdout)


def test_the_vendored_schema_is_the_official_one() -> None:
    Draft4Validator.check_schema(SCHEMA)
    assert SCHEMA["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")


@pytest.mark.parametrize("policy", ["policy", BROKEN], ids=["clean", "many-laws"])
def test_sarif_validates_against_the_official_schema(policy: str) -> None:
    code, log = _check(policy, "sarif")
    errors = sorted(Draft4Validator(SCHEMA).iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    assert log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    assert (code == 0) == (results == [])


def test_sarif_results_are_the_diagnostics_at_their_places() -> None:
    code, log = _check(BROKEN, "sarif")
    json_code, diagnostics = _check(BROKEN, "json")
    assert code == json_code == 1
    run = log["runs"][0]
    results = run["results"]
    assert len(results) == len(diagnostics) > 1
    rules = run["tool"]["driver"]["rules"]
    for result, d in zip(results, diagnostics):
        assert result["ruleId"] == d["law"] == rules[result["ruleIndex"]]["id"]
        assert result["message"]["text"].startswith(f"[{d['law']}] {d['title']}")
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == d["file"]
        if d["line"] is not None:
            assert (location["region"]["startLine"], location["region"]["startColumn"]) == (d["line"], d["column"])
