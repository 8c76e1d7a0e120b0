#!/usr/bin/env bash
# Fetches the Sia artifact's data (SOSP 2023; repository siasosp23/artifacts at aaf7a0d, folder
# sia-simulator/: traces/ and workloads/) into DEST and checks every file against
# tools/sia-data.sha256. The artifact has no licence, so this repository never holds a copy:
# each user fetches it (docs/data.md).
#
#   tools/fetch-sia-data.sh DEST        then: export BLOX_SIA_DATA=DEST
#
# Needs git, network access to the repository and sha256sum (the checksum list was checked
# here against the repository's files at that commit). Nothing is written to DEST unless every checksum matches.
set -euo pipefail
dest="${1:?usage: $0 DEST}"
here="$(cd "$(dirname "$0")" && pwd)"
sums="$here/sia-data.sha256"
commit=aaf7a0d
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --filter=blob:none --no-checkout https://github.com/siasosp23/artifacts "$tmp/repo"
# The models' folders, not all of traces/ (its helios_saturn.csv is not needed and may be absent).
paths=(sia-simulator/workloads sia-simulator/traces/philly.csv)
for m in bert cifar10 deepspeech2 gpt_pmp imagenet ncf yolov3; do
    paths+=("sia-simulator/traces/$m")
done
git -C "$tmp/repo" checkout --quiet "$commit" -- "${paths[@]}"
stage="$tmp/repo/sia-simulator"
(cd "$stage" && sha256sum --check --quiet "$sums") || {
    echo "error: the fetched files do not match tools/sia-data.sha256; nothing written" >&2
    exit 1
}
mkdir -p "$dest"
cp -R "$stage/traces" "$stage/workloads" "$dest/"
echo "Sia data in $dest ($(wc -l < "$sums") files checked); export BLOX_SIA_DATA=$dest"
