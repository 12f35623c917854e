#!/usr/bin/env bash
# Regenerates packages/io/src/__fixtures__/recordio/ (the .rec/.idx/.payloads files and
# manifest.json) with dmlc-core's own RecordIO writer, reader and splitters, then pack.json with
# Python's struct module (pack.py). Nothing from dmlc-core is copied into the repository: it is
# fetched (or taken from DMLC_SRC), built beside the project, and linked into our driver.
#
#   DMLC_SRC=/path/to/dmlc-core bash tools/golden/recordio/build.sh     # an existing checkout
#   bash tools/golden/recordio/build.sh                                 # clones dmlc-core
#
# Needs git (without DMLC_SRC), cmake, make, g++ (C++17) and /usr/bin/python3 with NumPy.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/packages/io/src/__fixtures__/recordio"
work="${DMLC_WORK:-/tmp/dmlc-build}"
src="${DMLC_SRC:-$work/dmlc-core}"
if [ ! -f "$src/include/dmlc/recordio.h" ]; then
  git clone --depth 1 https://github.com/dmlc/dmlc-core.git "$src"
fi
mkdir -p "$work/build"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DUSE_OPENMP=OFF > "$work/cmake.log"
cmake --build "$work/build" --target dmlc -j 2 > "$work/make.log"
g++ -std=c++17 -O1 -I"$src/include" -I"$work/build/include" "$here/recordio_golden.cc" \
  "$work/build/libdmlc.a" -lpthread -o "$work/recordio_golden"
mkdir -p "$out"
"$work/recordio_golden" "$out"
/usr/bin/python3 "$here/pack.py"
echo "wrote $out"
