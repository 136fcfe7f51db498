#!/bin/sh
# Install Debian's graphviz package (the `dot` program) when it is missing.
# `stackctl stack-graph --format svg|png`, the API's .../graph endpoint and the
# guide's picture of the packages (`make docs`) render with it; DOT text needs nothing.  Without it (and not root) those formats fail
# with a clear error and their tests are skipped.
set -e
if command -v dot >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "Graphviz (dot) is missing and we are not root: SVG/PNG graph tests will be skipped." >&2
    exit 0
fi
echo "Installing Debian's graphviz package for stack graphs..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends graphviz >/dev/null
