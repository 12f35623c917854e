// Golden samples from libstdc++'s <random> for @mx/storage's distribution tests.
//
// MXNet's CPU kRandom (mshadow Random<cpu>) draws from std::mt19937 through
// std::uniform_real_distribution<T> and std::normal_distribution<T>; this program prints what
// libstdc++ produces for a few seeds and parameters, as JSON on stdout:
//   cases:        one distribution object per case, `count` values, then the next raw engine output
//                 (checks how many draws the samples consumed, e.g. polar-method rejections);
//   freshPerCall: mshadow's SampleGaussian pattern, a new normal_distribution per 7-value call;
//   canonical:    std::generate_canonical on fixed engine outputs, including the round-to-1 edge.
// Floats are printed with 9 significant digits and doubles with 17, so both round-trip exactly.
// Build and run with tools/golden/std_distributions.sh.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kCount = 128;
const std::uint32_t kSeeds[] = {5489u, 42u * 127u, 4294967295u};

// A UniformRandomBitGenerator replaying fixed 32-bit outputs.
struct FixedGen {
  using result_type = std::uint32_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xFFFFFFFFu; }
  std::vector<result_type> values;
  std::size_t pos = 0;
  result_type operator()() { return values[pos++ % values.size()]; }
};

void PrintValue(float v) { std::printf("%.9g", static_cast<double>(v)); }
void PrintValue(double v) { std::printf("%.17g", v); }

template <typename T>
void PrintArray(const std::vector<T>& values) {
  std::printf("[");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) std::printf(",");
    PrintValue(values[i]);
  }
  std::printf("]");
}

bool first_case = true;

template <typename Dist>
void EmitCase(const char* dist, const char* dtype, std::uint32_t seed, double p1, double p2) {
  using T = typename Dist::result_type;
  std::mt19937 engine(seed);
  Dist d(static_cast<T>(p1), static_cast<T>(p2));
  std::vector<T> values;
  for (int i = 0; i < kCount; ++i) values.push_back(d(engine));
  std::printf("%s\n{\"dist\":\"%s\",\"dtype\":\"%s\",\"seed\":%u,\"params\":[%.17g,%.17g],\"values\":",
              first_case ? "" : ",", dist, dtype, seed, p1, p2);
  PrintArray(values);
  std::printf(",\"nextRaw\":%u}", static_cast<unsigned>(engine()));
  first_case = false;
}

template <typename T>
void EmitFreshPerCall(const char* dtype, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::vector<T> values;
  for (int call = 0; call < 3; ++call) {
    std::normal_distribution<T> d(T(0), T(1));
    for (int i = 0; i < 7; ++i) values.push_back(d(engine));
  }
  std::printf("{\"dtype\":\"%s\",\"seed\":%u,\"calls\":3,\"perCall\":7,\"values\":", dtype, seed);
  PrintArray(values);
  std::printf(",\"nextRaw\":%u}", static_cast<unsigned>(engine()));
}

}  // namespace

int main() {
  std::printf("{\"compiler\":\"g++ %s\",\"glibcxx\":%d,\"count\":%d,\"cases\":[", __VERSION__, __GLIBCXX__, kCount);
  for (std::uint32_t seed : kSeeds) {
    EmitCase<std::uniform_real_distribution<float>>("uniform_real_distribution", "float32", seed, 0, 1);
    EmitCase<std::uniform_real_distribution<float>>("uniform_real_distribution", "float32", seed, -2.5, 3.75);
    EmitCase<std::uniform_real_distribution<double>>("uniform_real_distribution", "float64", seed, 0, 1);
    EmitCase<std::uniform_real_distribution<double>>("uniform_real_distribution", "float64", seed, -2.5, 3.75);
    EmitCase<std::normal_distribution<float>>("normal_distribution", "float32", seed, 0, 1);
    EmitCase<std::normal_distribution<float>>("normal_distribution", "float32", seed, 1.5, 2.25);
    EmitCase<std::normal_distribution<double>>("normal_distribution", "float64", seed, 0, 1);
    EmitCase<std::normal_distribution<double>>("normal_distribution", "float64", seed, 1.5, 2.25);
  }
  std::printf("],\n\"freshPerCall\":[");
  EmitFreshPerCall<float>("float32", 5489u);
  std::printf(",");
  EmitFreshPerCall<double>("float64", 5489u);

  // generate_canonical<float, 24> takes one draw; <double, 53> takes two (low word first).
  FixedGen g;
  g.values = {0u, 1u, 255u, 0x80000000u, 0xFFFFFF7Fu, 0xFFFFFF80u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  std::vector<float> f;
  for (std::size_t i = 0; i < g.values.size(); ++i) f.push_back(std::generate_canonical<float, 24>(g));
  std::printf("],\n\"canonical\":{\"inputs\":[");
  for (std::size_t i = 0; i < g.values.size(); ++i) std::printf("%s%u", i ? "," : "", g.values[i]);
  std::printf("],\"float32\":");
  PrintArray(f);
  FixedGen h;
  h.values = {0u, 0u, 1u, 0u, 0u, 1u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFFFFFBFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::vector<double> d;
  for (std::size_t i = 0; i < h.values.size() / 2; ++i) d.push_back(std::generate_canonical<double, 53>(h));
  std::printf(",\"float64Inputs\":[");
  for (std::size_t i = 0; i < h.values.size(); ++i) std::printf("%s%u", i ? "," : "", h.values[i]);
  std::printf("],\"float64\":");
  PrintArray(d);
  std::printf("}}\n");
  return 0;
}
