#!/usr/bin/env bash
# Create .venv at the repo root and install the package with its test extras.
# torch is pinned to the CPU build that lies on this machine's disk; an unpinned torch pulls a
# multi-GB CUDA build. Idempotent: rerunning only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")"
# The oracle's sandboxed code runs as an unprivileged uid, which needs a world-readable Python (the system one);
# its seccomp rules are written by libseccomp, through Debian's python3-seccomp for that interpreter.
if [ "$(id -u)" = 0 ] && [ ! -x /usr/bin/python3 ] && command -v apt-get >/dev/null; then apt-get install -y -q python3; fi
if [ "$(id -u)" = 0 ] && ! dpkg -s python3-seccomp >/dev/null 2>&1 && command -v apt-get >/dev/null; then
  apt-get install -y -q python3-seccomp || { apt-get update -q && apt-get install -y -q python3-seccomp; }
fi
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[test]"
echo "ready: .venv/bin/execretrieval"
