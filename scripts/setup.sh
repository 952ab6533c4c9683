#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install gameshelf with the training, test and notebook extras.
# torch is pinned to the CPU wheel 2.13.0 and installed first, so nothing pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "gameshelf needs Python >= 3.11" >&2; exit 1; }
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[train,dev,notebooks]"
# gameshelf serve (Starlette, uvicorn; its browser test also needs a system Chromium, .ci/run installs it) and
# pygame for PettingZoo's connect_four_v3, the row every `gameshelf bench` compares against
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[web,bench]"
