# Sourced by the suites' run scripts: one way to make a pinned Python venv.
#
#   pinned_venv LABEL VENV REQUIREMENTS
#
# creates VENV (under target/) with $PYTHON or python3 if it is missing, and
# pip-installs REQUIREMENTS whenever their sha256 differs from the last
# install, so a rerun with unchanged pins installs nothing.
pinned_venv() {
  local label="$1" venv="$2" req="$3"
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "$label: creating venv in $venv" >&2
    mkdir -p "$(dirname "$venv")"
    "${PYTHON:-python3}" -m venv "$venv"
  fi
  local stamp="$venv/.requirements.sha256" want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "$label: installing $(grep -Ev '^\s*(#|$)' "$req" | tr '\n' ' ')" >&2
    # A line per package (no bar: CI's output is not a terminal), so a slow install shows it moves.
    "$venv/bin/python" -m pip install --progress-bar off --disable-pip-version-check -r "$req"
    echo "$want" >"$stamp"
  fi
}
