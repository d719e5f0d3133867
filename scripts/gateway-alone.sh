#!/usr/bin/env bash
# The gateway alone (`m1nd` without its `store` feature) stays a build of its own: it passes clippy
# and its unit tests, and its dependency tree holds no SQLite and no PostgreSQL client. `cargo install m1nd --no-default-features --features http-upstream` builds it.
#
#   scripts/gateway-alone.sh
set -euo pipefail
cd "$(dirname "$0")/.."
features=(--no-default-features --features http-upstream)
cargo clippy --locked -p m1nd "${features[@]}" --lib --bins -- -D warnings
cargo clippy --locked -p m1nd "${features[@]}" --lib --bins --profile test -- -D warnings
cargo test --locked -p m1nd "${features[@]}" --lib --bins
tree=$(cargo tree --locked -p m1nd "${features[@]}" -e normal --prefix none | sed 's/ (\*)$//' | sort -u)
if grep -E '^(rusqlite|libsqlite3-sys|postgres|tokio-postgres|tokio-postgres-rustls) ' <<<"$tree"; then
  echo "the gateway alone depends on the crates above, which only the store needs" >&2
  exit 1
fi
echo "the gateway alone: $(wc -l <<<"$tree") crates, no SQLite, no PostgreSQL"
