#!/usr/bin/env bash
# Build the user guide (docs/guide) into target/guide and check its links.
#
# mdBook is not a Debian package: it is built from crates.io at the version pinned below
# (`cargo install --locked`, a debug build: quicker to build, and fast enough for a book this
# size) into target/tools, and used from there while target/ lasts. A cold target/ pays for the
# build once; afterwards the script only builds the book and checks it.
#
# The link check (docs/check_links.py, standard-library Python) reads the built HTML and checks,
# offline, that every relative link reaches a file and every #fragment an id in it (mdBook itself
# checks neither). Pages that include files ({{#include}}) make mdBook report an ERROR when a file
# is missing, yet exit 0, so any ERROR or WARN line in its output fails the build here.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4
TOOLS=target/tools
OUT=target/guide

# mdBook without its `serve` and `watch` features, which a build does not use; built once, and
# again only when the pinned version changes.
if [[ "$("$TOOLS/bin/mdbook" --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]]; then
  echo "docs/build.sh: building mdbook $MDBOOK_VERSION into $TOOLS/bin (once per cold target/)" >&2
  cargo install mdbook --locked --debug --force --version "=$MDBOOK_VERSION" \
    --no-default-features --features search --root "$TOOLS" --target-dir "$TOOLS/build-mdbook"
  rm -rf "$TOOLS/build-mdbook"
fi

rm -rf "$OUT"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$TOOLS/bin/mdbook" build docs/guide 2>&1 | tee "$log"
if grep -Eq '^[[:space:]]*(ERROR|WARN)' "$log"; then
  echo "docs/build.sh: mdBook reported a problem (see ERROR/WARN above): a missing {{#include}} file or page" >&2
  exit 1
fi

python3 docs/check_links.py "$OUT"
echo "docs/build.sh: the guide is in $OUT/index.html"
