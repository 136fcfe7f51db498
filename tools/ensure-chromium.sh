#!/bin/sh
# Install Debian's Chromium when it is missing: the console's browser tests drive it
# (Playwright for Python with executable_path=/usr/bin/chromium; browsers cannot be
# downloaded here, Debian's package installs).  The tests start it themselves.
set -e
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "Chromium is missing and we are not root: the console's browser tests will be skipped." >&2
    exit 0
fi
echo "Installing Debian's chromium package for the console's browser tests..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
