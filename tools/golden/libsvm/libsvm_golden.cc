// Golden rows for @mx's LibSVM reader: parses LibSVM files with dmlc-core's own parser, exactly as
// MXNet's LibSVMIter creates it (dmlc::Parser<uint64_t>::Create(uri, part_index, num_parts,
// "libsvm")), and prints every RowBlock it returns as JSON. Our own driver: it calls only
// dmlc-core's public API (dmlc/data.h); no dmlc-core code is copied here.
//
//   libsvm_golden <uri> <num_parts>      prints {"uri", "num_parts", "parts": [[block...] per part]}
//
// A block is {"offset", "label", "weight" (null when absent), "qid" (null when absent), "index",
// "value" (null when no feature had a value)}. Floats are printed with 9 significant digits, which
// round-trips float32 exactly; indices are unsigned 64-bit integers printed as JSON numbers.
#include <dmlc/data.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

void PrintFloat(float v) {
  if (v != v) {
    std::printf("\"nan\"");
  } else if (v == __builtin_inff()) {
    std::printf("\"inf\"");
  } else if (v == -__builtin_inff()) {
    std::printf("\"-inf\"");
  } else if (v == 0.0f && std::signbit(v)) {
    std::printf("-0.0");  // survives JSON tools that read "-0" as the integer 0
  } else {
    std::printf("%.9g", static_cast<double>(v));
  }
}

template <typename T, typename F>
void PrintArray(const T *data, size_t n, F print) {
  if (data == nullptr) {
    std::printf("null");
    return;
  }
  std::printf("[");
  for (size_t i = 0; i < n; ++i) {
    if (i != 0) std::printf(",");
    print(data[i]);
  }
  std::printf("]");
}

void PrintBlock(const dmlc::RowBlock<uint64_t> &b) {
  const size_t nnz = b.offset[b.size] - b.offset[0];
  std::printf("{\"offset\":");
  PrintArray(b.offset, b.size + 1, [&](size_t v) { std::printf("%zu", v - b.offset[0]); });
  std::printf(",\"label\":");
  PrintArray(b.label, b.size, PrintFloat);
  std::printf(",\"weight\":");
  PrintArray(b.weight, b.size, PrintFloat);
  std::printf(",\"qid\":");
  PrintArray(b.qid, b.size, [](uint64_t v) { std::printf("%" PRIu64, v); });
  std::printf(",\"index\":");
  PrintArray(b.index + b.offset[0], nnz, [](uint64_t v) { std::printf("%" PRIu64, v); });
  std::printf(",\"value\":");
  PrintArray(b.value == nullptr ? nullptr : b.value + b.offset[0], nnz, PrintFloat);
  std::printf("}");
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <uri> <num_parts>\n", argv[0]);
    return 2;
  }
  const std::string uri = argv[1];
  const unsigned num_parts = static_cast<unsigned>(std::atoi(argv[2]));
  std::printf("{\"uri\":\"%s\",\"num_parts\":%u,\"parts\":[", uri.c_str(), num_parts);
  for (unsigned part = 0; part < num_parts; ++part) {
    if (part != 0) std::printf(",");
    std::printf("[");
    std::unique_ptr<dmlc::Parser<uint64_t>> parser(
        dmlc::Parser<uint64_t>::Create(uri.c_str(), part, num_parts, "libsvm"));
    bool any = false;
    while (parser->Next()) {
      const dmlc::RowBlock<uint64_t> &block = parser->Value();
      if (block.size == 0) continue;
      if (any) std::printf(",");
      PrintBlock(block);
      any = true;
    }
    std::printf("]");
  }
  std::printf("]}\n");
  return 0;
}
