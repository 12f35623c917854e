#!/usr/bin/env bash
# Regenerates packages/storage/src/resource/__golden__/std_distributions.json: libstdc++'s
# std::uniform_real_distribution / std::normal_distribution (float and double) and
# std::generate_canonical samples from std::mt19937, which @mx's CPU random resources reproduce.
# Needs g++ (libstdc++) and the repo's node_modules (Biome formats the JSON the way the linter wants).
# Plain -O2 for x86-64 has no FMA, so float expressions are not contracted, as in a default MXNet build.
# Rerun from anywhere:  bash tools/golden/std_distributions.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/packages/storage/src/resource/__golden__/std_distributions.json"
bin="$(mktemp -d)/std_distributions"
g++ -std=c++17 -O2 -ffp-contract=off -o "$bin" "$here/std_distributions.cc"
mkdir -p "$(dirname "$out")"
"$bin" > "$out"
rm -f "$bin"
(cd "$root" && pnpm exec biome format --write "$out" > /dev/null)
echo "wrote $out"
