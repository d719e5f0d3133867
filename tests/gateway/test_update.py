"""Updates a person can read and apply: mcp-server-time (PyPI) names the local timezone in its tools'
argument descriptions, so a policy imported on one machine pins definitions another machine's server
does not list. `policy import --update` shows each change as a readable diff and fails; `--apply`
writes the new pins and stored definitions; then the gateway serves the tools again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gateway_harness import gateway, m1nd_bin, policy, venv_bin

pytestmark = pytest.mark.anyio

REVIEWED_ZONE = "Europe/Warsaw"
OTHER_ZONE = "Asia/Tokyo"


def time_server(zone: str) -> list[str]:
    return [venv_bin("mcp-server-time"), "--local-timezone", zone]


def m1nd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(m1nd_bin()), *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )


def imported(tmp_path: Path, zone: str) -> Path:
    """The time server's policy as `policy import` writes it under `zone`, trusting its read-only hints
    (both tools only read the clock), so a read-only session lists both."""
    policy_dir = tmp_path / "time"
    done = m1nd("policy", "import", "--policy", str(policy_dir), "--read-only-from-hints", "--", *time_server(zone))
    assert done.returncode == 0, done.stderr
    return policy_dir


async def listed_names(policy_dir: Path, zone: str, tmp_path: Path) -> set[str]:
    async with gateway(policy_dir, time_server(zone), log_dir=tmp_path) as gw:
        return {t.name for t in (await gw.session.list_tools()).tools}


async def test_another_timezone_shows_a_readable_diff_fails_and_applies(tmp_path: Path) -> None:
    policy_dir = imported(tmp_path, REVIEWED_ZONE)
    declared = set(policy(policy_dir)["verbs"])
    stored = json.loads((policy_dir / "definitions.json").read_text())
    assert {d["name"] for d in stored} == declared, "import stores the definition of every tool it pins"
    assert await listed_names(policy_dir, REVIEWED_ZONE, tmp_path) == declared
    assert await listed_names(policy_dir, OTHER_ZONE, tmp_path) == set(), "every definition names the zone"

    before = {f: (policy_dir / f).read_bytes() for f in ("tools.toml", "read_only_denied.toml", "definitions.json")}
    update = m1nd("policy", "import", "--update", "--policy", str(policy_dir), "--", *time_server(OTHER_ZONE))
    assert update.returncode == 1, update.stdout + update.stderr
    for verb in declared:
        assert f"~ `{verb}`: its definition changed" in update.stdout, update.stdout
    removed = [l for l in update.stdout.splitlines() if l.startswith("-") and not l.startswith("---")]
    added = [l for l in update.stdout.splitlines() if l.startswith("+") and not l.startswith("+++")]
    assert removed and all(REVIEWED_ZONE in l for l in removed), update.stdout
    assert added and all(OTHER_ZONE in l for l in added), update.stdout
    assert len(removed) == len(added), "only the lines naming the zone changed"
    assert "nothing was applied" in update.stderr and "--update --apply" in update.stderr, update.stderr
    assert {f: (policy_dir / f).read_bytes() for f in before} == before, "reporting writes nothing"

    apply = m1nd("policy", "import", "--update", "--apply", "--policy", str(policy_dir), "--", *time_server(OTHER_ZONE))
    assert apply.returncode == 0, apply.stdout + apply.stderr
    assert "applied:" in apply.stdout, apply.stdout
    assert (policy_dir / "read_only_denied.toml").read_bytes() == before["read_only_denied.toml"]
    old_lines = before["tools.toml"].decode().splitlines()
    new_lines = (policy_dir / "tools.toml").read_text().splitlines()
    changed = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
    assert len(old_lines) == len(new_lines) and len(changed) == len(declared), changed
    assert all(a.startswith("definition = ") and b.startswith("definition = ") for a, b in changed), changed

    check = m1nd("policy", "check", "--gateway", str(policy_dir))
    assert check.returncode == 0, check.stdout + check.stderr
    assert await listed_names(policy_dir, OTHER_ZONE, tmp_path) == declared, "the reviewed update is served"
    assert await listed_names(policy_dir, REVIEWED_ZONE, tmp_path) == set()

    again = m1nd("policy", "import", "--update", "--policy", str(policy_dir), "--", *time_server(OTHER_ZONE))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "every pin matches the upstream" in again.stdout, again.stdout


async def test_a_policy_without_stored_definitions_compares_digests_and_says_how_to_read_them(tmp_path: Path) -> None:
    policy_dir = imported(tmp_path, REVIEWED_ZONE)
    (policy_dir / "definitions.json").unlink()
    update = m1nd("policy", "import", "--update", "--policy", str(policy_dir), "--", *time_server(OTHER_ZONE))
    assert update.returncode == 1, update.stdout + update.stderr
    assert "only the digests can be compared" in update.stdout, update.stdout
    assert "keeps no reviewed definitions (definitions.json)" in update.stdout, update.stdout
    # The reviewed server version again: every pin matches, so --apply only stores what was reviewed.
    store = m1nd("policy", "import", "--update", "--apply", "--policy", str(policy_dir), "--", *time_server(REVIEWED_ZONE))
    assert store.returncode == 0, store.stdout + store.stderr
    assert "0 pins updated" in store.stdout, store.stdout
    readable = m1nd("policy", "import", "--update", "--policy", str(policy_dir), "--", *time_server(OTHER_ZONE))
    assert readable.returncode == 1, readable.stdout + readable.stderr
    assert "only the digests can be compared" not in readable.stdout, readable.stdout
    assert any(
        l.startswith("+") and '"description": ' in l and OTHER_ZONE in l for l in readable.stdout.splitlines()
    ), readable.stdout


def test_a_stored_definition_that_is_not_its_pin_fails_policy_check(tmp_path: Path) -> None:
    policy_dir = imported(tmp_path, REVIEWED_ZONE)
    stored = json.loads((policy_dir / "definitions.json").read_text())
    stored[0]["description"] = "Harmless, honestly."
    (policy_dir / "definitions.json").write_text(json.dumps(stored, indent=2))
    check = m1nd("policy", "check", "--gateway", str(policy_dir))
    assert check.returncode == 1, check.stdout + check.stderr
    assert f"entry 1 (`{stored[0]['name']}`) has the digest" in check.stderr, check.stderr
    assert "definitions.json does not hold the definitions tools.toml pins" in check.stderr, check.stderr


def test_a_policy_tightened_by_hand_passes_check_and_apply_drops_the_stale_definition(tmp_path: Path) -> None:
    """A reviewer deletes a declaration, as the guide advises for a tool no session should reach: the stored
    definition left behind is stale, not a mismatch. `policy check` passes with a note; `--update --apply`
    rewrites definitions.json without it and moves no pin; then the note is gone."""
    policy_dir = imported(tmp_path, REVIEWED_ZONE)
    tools = (policy_dir / "tools.toml").read_text()
    kept = tools[: tools.index("[verbs.convert_time]")]
    (policy_dir / "tools.toml").write_text(kept)
    assert len(json.loads((policy_dir / "definitions.json").read_text())) == 2

    check = m1nd("policy", "check", "--gateway", str(policy_dir))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "holds the reviewed definition of `convert_time`, which tools.toml no longer declares" in check.stderr
    update = m1nd("policy", "import", "--update", "--policy", str(policy_dir), "--", *time_server(REVIEWED_ZONE))
    assert update.returncode == 0, update.stdout + update.stderr
    assert "the entry is stale and ignored" in update.stdout, update.stdout

    apply = m1nd("policy", "import", "--update", "--apply", "--policy", str(policy_dir), "--", *time_server(REVIEWED_ZONE))
    assert apply.returncode == 0, apply.stdout + apply.stderr
    assert "applied: 0 pins updated" in apply.stdout, apply.stdout
    assert (policy_dir / "tools.toml").read_text() == kept, "the hand-made tightening is kept as written"
    assert [d["name"] for d in json.loads((policy_dir / "definitions.json").read_text())] == ["get_current_time"]
    again = m1nd("policy", "check", "--gateway", str(policy_dir))
    assert again.returncode == 0 and "stale" not in again.stderr, again.stdout + again.stderr


def test_an_upstream_that_is_gone_is_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    policy_dir = imported(tmp_path, REVIEWED_ZONE)
    before = {p.name: p.read_bytes() for p in policy_dir.iterdir()}
    gone = str(tmp_path / "uninstalled-mcp-server-time")
    for extra in ([], ["--apply"]):
        update = m1nd("policy", "import", "--update", *extra, "--policy", str(policy_dir), "--", gone)
        assert update.returncode == 2, update.stdout + update.stderr
        assert f"cannot compare {policy_dir} with its upstream: cannot start the upstream" in update.stderr, update.stderr
        assert "Nothing was compared and nothing was changed" in update.stderr, update.stderr
        assert {p.name: p.read_bytes() for p in policy_dir.iterdir()} == before
