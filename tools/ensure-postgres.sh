#!/bin/sh
# Install Debian's PostgreSQL server binaries when they are missing.
# The test fixtures start a private server themselves (own data dir, port and socket).
set -e
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "PostgreSQL server binaries are missing and we are not root: PostgreSQL tests will be skipped." >&2
    exit 0
fi
echo "Installing Debian's postgresql package for the PostgreSQL tests..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq postgresql >/dev/null
# Debian starts a cluster on install; the tests use their own, so stop it.
if command -v pg_ctlcluster >/dev/null 2>&1; then
    for conf in /etc/postgresql/*/main; do
        [ -d "$conf" ] || continue
        version=$(basename "$(dirname "$conf")")
        pg_ctlcluster "$version" main stop >/dev/null 2>&1 || true
    done
fi
