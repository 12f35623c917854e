// Prints the order MXNet's MNISTIter gives its images: std::shuffle of 0..n-1 driven by
// std::mt19937(seed), exactly as src/io/iter_mnist.cc does (kRandMagic = 0). The result depends on
// the C++ standard library; gen-golden.py records which one it was built with.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  const unsigned n = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10));
  const int seed = std::atoi(argv[2]);
  std::vector<unsigned> inst(n);
  for (unsigned i = 0; i < n; ++i) inst[i] = i;
  std::shuffle(inst.begin(), inst.end(), std::mt19937(0 + seed));
  for (unsigned i = 0; i < n; ++i) std::printf("%u\n", inst[i]);
  return 0;
}
