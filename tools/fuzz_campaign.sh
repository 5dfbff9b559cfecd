#!/usr/bin/env bash
# tox -e fuzz: a real, timed campaign against a zoo member, then the replay that proves it was saved.
#   tools/fuzz_campaign.sh WORKDIR [DURATION] [MEMBER]   (defaults: 2m, bpe_conformance.zoo:StopsOneMergeEarly)
# Exits non-zero unless the campaign found the member (exit 1) and `run --database` fails on the same check.
set -uo pipefail

workdir=${1:?usage: tools/fuzz_campaign.sh WORKDIR [DURATION] [MEMBER]}
duration=${2:-2m}
member=${3:-conformance.zoo:StopsOneMergeEarly}
mkdir -p "$workdir"
database="$workdir/examples"
summary="$workdir/fuzz.json"
rm -rf "$database" "$summary"

bpe-conformance fuzz --impl "$member" --duration "$duration" --database "$database" --json "$summary"
status=$?
if [ "$status" -ne 1 ]; then
    echo "tools/fuzz_campaign.sh: the campaign against $member exited $status, expected 1 (a failure found)" >&2
    exit 1
fi

check=$(python -c 'import json, sys; print(json.load(open(sys.argv[1]))["failures"][0]["check"])' "$summary")
echo
echo "replaying the first failure ($check) from $database:"
bpe-conformance run --impl "$member" --database "$database" --check "$check" --quiet
status=$?
if [ "$status" -ne 1 ]; then
    echo "tools/fuzz_campaign.sh: run --database did not replay the failure of $check (exit $status)" >&2
    exit 1
fi
echo "tools/fuzz_campaign.sh: found, saved and replayed"
