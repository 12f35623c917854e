#!/usr/bin/env bash
# Regenerates packages/io/src/__golden__/libsvm/rows.json: the rows dmlc-core's own LibSVM parser
# reads from the sample files in packages/io/src/__fixtures__/libsvm/ (written by fixtures.py),
# for every part of several num_parts, created exactly as MXNet's LibSVMIter creates it. Nothing
# from dmlc-core is copied into the repository: it is taken from DMLC_SRC (or cloned at MXNet's
# pinned commit), built beside the project, and linked into our driver libsvm_golden.cc.
#
#   DMLC_SRC=/path/to/dmlc-core bash tools/golden/libsvm/build.sh
#   bash tools/golden/libsvm/build.sh            # clones dmlc-core (needs network)
#
# Needs git (without DMLC_SRC), cmake, make, g++ (C++17) and /usr/bin/python3.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
fixtures="$root/packages/io/src/__fixtures__/libsvm"
out="$root/packages/io/src/__golden__/libsvm"
work="${DMLC_WORK:-/work/dmlc-build}"
src="${DMLC_SRC:-$work/src}"
# apache/mxnet's 3rdparty/dmlc-core submodule (MXNet master, 2023-01-26)
commit=5df8305fe699d3b503d10c60a231ab0223142407
if [ ! -f "$src/include/dmlc/data.h" ]; then
  git clone https://github.com/dmlc/dmlc-core.git "$src"
  git -C "$src" checkout "$commit"
fi
mkdir -p "$work/build"
# No OpenMP: dmlc then parses each chunk in one piece, so its indexing_mode=-1 detection covers
# the whole (small) part, as ours does.
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DUSE_OPENMP=OFF > "$work/cmake.log"
cmake --build "$work/build" --target dmlc -j 2 > "$work/make.log"
g++ -std=c++17 -O1 -I"$src/include" -I"$work/build/include" "$here/libsvm_golden.cc" \
  "$work/build/libdmlc.a" -lpthread -o "$work/libsvm_golden"
/usr/bin/python3 "$here/fixtures.py"
mkdir -p "$out"
cd "$fixtures"
run() { "$work/libsvm_golden" "$1" "$2"; }
{
  echo "{\"dmlc_core_commit\":\"$commit\",\"cases\":["
  first=1
  emit() {
    if [ $first -eq 0 ]; then echo ","; fi
    first=0
    run "$1" "$2"
  }
  for f in mxnet-doc-data mxnet-doc-label one-based weights-qid comments-empty bom; do
    for n in 1 2 3 4 7; do emit "$f.libsvm" $n; done
  done
  for n in 1 2 3 4 7 16; do emit generated.libsvm $n; done
  for n in 1 2 3 5; do emit "dir/a.libsvm;dir/b.libsvm;dir/c-empty.libsvm" $n; done
  for n in 1 2 3; do
    emit "one-based.libsvm?indexing_mode=1" $n
    emit "one-based.libsvm?indexing_mode=-1" $n
  done
  emit "weights-qid.libsvm?indexing_mode=-1" 1
  emit "weights-qid.libsvm?indexing_mode=-1" 3
  emit "comments-empty.libsvm?indexing_mode=-1" 1
  emit "generated.libsvm?indexing_mode=-1" 4
  echo "]}"
} > "$out/rows.json.tmp"
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[2],'w'), indent=1); print(len(d['cases']), 'cases')" \
  "$out/rows.json.tmp" "$out/rows.json"
rm "$out/rows.json.tmp"
echo "wrote $out/rows.json"
