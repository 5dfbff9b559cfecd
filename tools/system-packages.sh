#!/usr/bin/env bash
# Install the Debian packages that the real-component tests use, where this machine allows it:
#   chromium      headless browser for the pages the harness writes (trace --html, matrix --html)
#   redis-server  the shared example database of fuzz campaigns (fuzz --database redis://...)
# Usage: tools/system-packages.sh [PACKAGE ...]   (default: all of the above)
# Without root or apt-get it only says what is missing: the tests that need a package skip with a reason.
set -uo pipefail

wanted=("$@")
((${#wanted[@]})) || wanted=(chromium redis-server)

missing=()
for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
((${#missing[@]})) || exit 0

if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null; then
        echo "tools/system-packages.sh: could not install ${missing[*]}; the tests that need them will skip" >&2
    fi
else
    echo "tools/system-packages.sh: ${missing[*]} not installed (needs apt-get as root); the tests that need them will skip" >&2
fi
exit 0
