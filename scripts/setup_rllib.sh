#!/usr/bin/env bash
# Create .venv-rllib (Python >= 3.11) with gameshelf and every extra, for `gameshelf train --backend rllib`.
# Ray 2.60 pins gymnasium==1.2.2 (which gameshelf supports: the whole suite runs here too); a virtualenv of its
# own lets .venv keep the newest Gymnasium beside it.
# torch is pinned to the CPU wheel 2.13.0 and installed first, so nothing pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv-rllib/bin/python ]; then
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "gameshelf needs Python >= 3.11" >&2; exit 1; }
  "$PYTHON" -m venv .venv-rllib
fi
.venv-rllib/bin/python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
.venv-rllib/bin/python -m pip install --quiet --disable-pip-version-check -e ".[rllib,dev,web,bench,notebooks]"
