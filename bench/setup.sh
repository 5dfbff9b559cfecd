#!/usr/bin/env bash
# Install what the benchmark reads or compares against; everything is optional for the test suite.
# Prose corpora: Debian's English and Chinese manual pages. The mixed 100 MB corpus (bench/corpora.py):
# the Go 1.19 standard library's source, the Linux kernel's, Python 3.11's and Perl's documentation.
# Engines: HF tokenizers, rustbpe, tiktoken.
set -euo pipefail

missing=()
for package in manpages manpages-zh golang-1.19-src linux-doc-6.1 python3.11-doc perl-doc; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}"
    else
        echo "bench/setup.sh: install ${missing[*]} (apt-get, as root) for the prose and mixed corpora" >&2
    fi
fi

python -m pip install --quiet "numpy>=1.24" "tokenizers>=0.15" "rustbpe>=0.1" "tiktoken>=0.7" "rich>=13"
