#!/bin/sh
# Install Debian's OpenSSH server when it is missing (the deploy tests start their own sshd:
# own host key, config, port and authorized keys; Debian's own service is never started).
set -e
if [ -x /usr/sbin/sshd ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "OpenSSH server is missing and we are not root: the SSH deploy tests will be skipped." >&2
    exit 0
fi
echo "Installing Debian's openssh-server package for the SSH deploy tests..." >&2
export DEBIAN_FRONTEND=noninteractive
# keep the package's own service from starting (no policy file of our own is left behind)
policy=/usr/sbin/policy-rc.d
own_policy=
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    own_policy=1
fi
apt-get update -qq >/dev/null
apt-get install -y -qq openssh-server >/dev/null
if [ -n "$own_policy" ]; then
    rm -f "$policy"
fi
