#!/usr/bin/env bash
# Regenerate m1nd's published facts under m1nd-upstream/m1nd-<version>/ from the
# published crates (see src/lib.rs): routes.json
# from m1nd-mcp's routing source, schemas.json from one run of m1nd-mcp's own
# server (built once, without default features, into target/m1nd-upstream-mcp/:
# a few minutes on 2 cores); and, from them, policy/catalog.json (m1nd-control's
# catalog) and policy/routes.toml, and the generated files of the policy of m1nd's
# real surface (UPSTREAM_POLICY in src/lib.rs) and of its variants: tools.toml
# (from schemas.json), catalog.json and routes.toml. The last step runs
# `cargo run -p m1nd-upstream` again once schemas.json is new. To move to another
# release, change MCP_VERSION, FACTS_DIR and the UPSTREAM_POLICY paths in
# src/lib.rs and the m1nd-control pins in Cargo.toml and extract/Cargo.toml,
# then run this; review the diff like code, and the hand-written files of that
# policy (effects.toml, read_only_denied.toml, help_cards.toml, cockpit.toml)
# against the new facts.
#
# Needs crates.io and python3. Writes only the files named here.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
version="$(sed -n 's/^pub const MCP_VERSION: &str = "\(.*\)";$/\1/p' "$here/src/lib.rs")"
facts="$here/$(sed -n 's/^pub const FACTS_DIR: &str = "\(.*\)";$/\1/p' "$here/src/lib.rs")"
[[ -n "$version" && -d "$facts" ]] || { echo "regenerate: cannot read MCP_VERSION and FACTS_DIR from src/lib.rs" >&2; exit 2; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/src"
: >"$scratch/src/lib.rs"
cat >"$scratch/Cargo.toml" <<TOML
[package]
name = "fetch-m1nd-mcp"
version = "0.0.0"
edition = "2021"
[dependencies]
m1nd-mcp = "=$version"
[workspace]
TOML
echo "regenerate: fetching the sources of m1nd-mcp $version (not building it)" >&2
cargo fetch --manifest-path "$scratch/Cargo.toml"
manifest="$(cargo metadata --manifest-path "$scratch/Cargo.toml" --format-version 1 \
  | python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "m1nd-mcp"))')"
routes_rs="$(dirname "$manifest")/src/action_routes.rs"

echo "regenerate: routes.json from $routes_rs" >&2
M1ND_ACTION_ROUTES="$routes_rs" cargo run --quiet --manifest-path "$here/extract/Cargo.toml" \
  --target-dir "$root/target/m1nd-upstream-extract" -- "$version" >"$facts/routes.json.new"
mv "$facts/routes.json.new" "$facts/routes.json"
echo "regenerate: policy/catalog.json from m1nd-control, policy/routes.toml from routes.json" >&2
(cd "$root" && cargo run --quiet -p m1nd-upstream)

mcp_root="$root/target/m1nd-upstream-mcp"
echo "regenerate: schemas.json from m1nd-mcp $version's own tools/list (building it into $mcp_root)" >&2
CARGO_TARGET_DIR="$mcp_root/build" cargo install --locked --debug --no-default-features \
  --version "=$version" --root "$mcp_root" m1nd-mcp
python3 "$here/tools_list.py" "$mcp_root/bin/m1nd-mcp" "$version" "$facts/schemas.json"
echo "regenerate: tools.toml of the real-surface policy from the new schemas.json" >&2
(cd "$root" && cargo run --quiet -p m1nd-upstream)
echo "regenerate: done; check with cargo test -p m1nd-upstream" >&2
