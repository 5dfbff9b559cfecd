#!/usr/bin/env bash
# Install what the benchmark reads or compares against; everything is optional for the test suite.
# Prose corpora: Debian's English and Chinese manual pages. Engines: HF tokenizers, rustbpe, tiktoken.
set -euo pipefail

missing=()
for package in manpages manpages-zh; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}"
    else
        echo "bench/setup.sh: install ${missing[*]} (apt-get, as root) for the prose corpora" >&2
    fi
fi

python -m pip install --quiet "numpy>=1.24" "tokenizers>=0.15" "rustbpe>=0.1" "tiktoken>=0.7" "rich>=13"
