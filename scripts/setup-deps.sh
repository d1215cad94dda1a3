#!/bin/sh
# Installs the Debian packages cpnsim needs, only when one is missing.
# Called by `make deps` (and so by `make run` and `make test`), and by .ci/run.
set -eu
# parallel, slurm-wlm and munge are for the tests only: the sweep's emitted job list and
# Slurm array run on the real GNU Parallel and a single-node Slurm (tests/test_sweep.c).
PKGS="build-essential pkg-config libgsl-dev libcjson-dev libcsv-dev libyaml-dev nettle-dev \
libcriterion-dev gnuplot-nox parallel slurm-wlm munge"
# Extra groups, installed only when named, so that `make test` never pulls them in:
# fuzz (`make fuzz`: clang, its libFuzzer and sanitizer runtimes, llvm-symbolizer for
# readable stacks) and valgrind (.ci/run's leak check of the default scenario).
for group in "$@"; do
    case "$group" in
    fuzz) PKGS="$PKGS clang libclang-rt-dev llvm" ;;
    valgrind) PKGS="$PKGS valgrind" ;;
    *) echo "setup-deps: unknown group '$group' (known: fuzz, valgrind)" >&2; exit 2 ;;
    esac
done
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup-deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
