#!/usr/bin/env bash
# Refresh the project's own copies of the probe-* and sim-* parity fixtures
# from the shared specification (../shared/spec/fixtures by default).
#
#   scripts/refresh_fixtures.sh [SHARED_FIXTURES_DIR]
#
# Copies experiments/probe-* and experiments/sim-* (exp.toml + expected/) into
# tests/fixtures/experiments/ and every input file their exp.toml refers to
# (../../inputs/...) into tests/fixtures/inputs/, so the relative paths keep
# resolving. The lr-eval* fixtures and RSMTool's test inputs
# (predictions_raw*, predictions_scaled*, predictions_same_system*,
# train_predictions*) are never copied: the parity test reads them from
# ../shared only.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
src="${1:-$repo/../shared/spec/fixtures}"
dst="$repo/tests/fixtures"

if [[ ! -d "$src/experiments" || ! -d "$src/inputs" ]]; then
    echo "error: $src does not look like the shared fixtures folder (no experiments/ or inputs/)" >&2
    exit 1
fi

forbidden_input() {
    case "$1" in
        predictions_raw*|predictions_scaled*|predictions_same_system*|train_predictions*) return 0 ;;
        *) return 1 ;;
    esac
}

mkdir -p "$dst/experiments" "$dst/inputs"

# Start from a clean slate for the families we own, so removed fixtures go too.
rm -rf "$dst"/experiments/probe-* "$dst"/experiments/sim-*

inputs=()
for exp in "$src"/experiments/probe-* "$src"/experiments/sim-*; do
    [[ -d "$exp" ]] || continue
    name="$(basename "$exp")"
    case "$name" in lr-eval*) echo "refusing to copy $name" >&2; exit 1 ;; esac
    cp -R "$exp" "$dst/experiments/$name"
    # every "../../inputs/<file>" mentioned in the config
    while IFS= read -r f; do
        inputs+=("$f")
    done < <(grep -o '\.\./\.\./inputs/[^"'"'"' ,]*' "$exp/exp.toml" | sed 's#^\.\./\.\./inputs/##' | sort -u)
    echo "copied experiments/$name"
done

if ((${#inputs[@]})); then
    for f in $(printf '%s\n' "${inputs[@]}" | sort -u); do
        if forbidden_input "$f"; then
            echo "error: $f is an RSMTool test input and must not be copied" >&2
            exit 1
        fi
        cp "$src/inputs/$f" "$dst/inputs/$f"
        echo "copied inputs/$f"
    done
fi

# Inputs that no copied experiment uses any more.
for f in "$dst"/inputs/*; do
    [[ -e "$f" ]] || continue
    b="$(basename "$f")"
    if ! printf '%s\n' "${inputs[@]}" | grep -qx "$b"; then
        echo "note: tests/fixtures/inputs/$b is not referenced by any copied experiment"
    fi
done
