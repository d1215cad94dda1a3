#!/bin/sh
# Golden outputs: runs every scenario of tests/golden/scenarios.txt and compares the
# SHA-256 of its jobs.csv, timeline.csv and summary.json (less the two wall-clock
# fields, wall_s and events_per_s) with tests/golden/expected.sha256.
#
#   sh scripts/golden.sh check [CPNSIM]    exit 0 when every hash matches, 1 otherwise
#   sh scripts/golden.sh update [CPNSIM]   rewrites expected.sha256 (`make golden`)
#
# CPNSIM defaults to build/cpnsim. Run from the repository root. A refactor must leave
# every hash as it is; a model change updates them with `make golden`, and its commit
# says why each scenario moved (docs/golden.md).
set -eu
mode=${1:-check}
bin=${2:-build/cpnsim}
case "$mode" in check|update) ;; *) echo "usage: golden.sh check|update [CPNSIM]" >&2; exit 2 ;; esac
dir=tests/golden
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpn_golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The inputs every scenario shares: the Philly import (pinned as a scenario of its own).
mkdir -p "$tmp/philly-import"
"$bin" import philly traces/philly/philly_jobs_pollux.csv --max-gpus 8 -o "$tmp/philly-all.csv" 2>/dev/null
head -n 2001 "$tmp/philly-all.csv" > "$tmp/philly-import/jobs.csv"
PHILLY2K="$tmp/philly-import/jobs.csv"

# gen with seed 1 writes traces/q100.csv (the default queue); pinned as its own scenario.
mkdir -p "$tmp/gen-q100"
"$bin" gen --count 100 --seed 1 > "$tmp/gen-q100/jobs.csv"

: > "$tmp/got"
for s in philly-import gen-q100; do
    (cd "$tmp" && sha256sum "$s/jobs.csv") >> "$tmp/got"
done
grep -v '^#' "$dir/scenarios.txt" | grep -v '^[[:space:]]*$' | while read -r name args; do
    # shellcheck disable=SC2086
    eval "set -- $args"
    status=0
    "$bin" run "$@" --out "$tmp/$name" --quiet > "$tmp/$name.log" 2>&1 || status=$?
    if [ ! -f "$tmp/$name/summary.json" ]; then
        echo "golden: $name: no summary.json (exit $status):" >&2
        cat "$tmp/$name.log" >&2
        echo "FAILED-TO-RUN  $name/summary.json" >> "$tmp/got"
        continue
    fi
    # The temporary directory's name (in jobs_file, for the Philly scenarios) is cut too.
    grep -v -e '"wall_s":' -e '"events_per_s":' "$tmp/$name/summary.json" |
        sed "s|$tmp/||g" > "$tmp/$name/summary.pinned"
    mv "$tmp/$name/summary.pinned" "$tmp/$name/summary.json"
    (cd "$tmp" && sha256sum "$name/jobs.csv" "$name/timeline.csv" "$name/summary.json") >> "$tmp/got"
done

if [ "$mode" = update ]; then
    cp "$tmp/got" "$dir/expected.sha256"
    echo "golden: wrote $dir/expected.sha256 ($(wc -l < "$dir/expected.sha256") hashes)"
    exit 0
fi
if diff -u "$dir/expected.sha256" "$tmp/got" > "$tmp/diff"; then
    echo "golden: $(wc -l < "$tmp/got") outputs match tests/golden/expected.sha256"
    exit 0
fi
echo "golden: outputs differ from tests/golden/expected.sha256 (- expected, + got):" >&2
grep '^[-+][^-+]' "$tmp/diff" >&2
exit 1
