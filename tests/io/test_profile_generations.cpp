// Generations a calibration profile does not list (profile_io.cpp, ComputeProfile::fill_stand_ins):
// Blackwell Ultra and Ada run on their stand-in generation's coefficients, prior only.
#include <doctest/doctest.h>

#include "flopcast/compute/compute_profile.hpp"
#include "flopcast/io/catalog.hpp"
#include "flopcast/scenario/diagnostic.hpp"

using namespace flopcast;

namespace {

constexpr const char* kThreeGenerations =
    "ampere: {gemm: 0.78, flash_attention: 0.6, hbm: 0.62}\n"
    "hopper: {gemm: 0.61, flash_attention: 0.35, hbm: 0.3}\n"
    "blackwell: {gemm: 0.5, flash_attention: 0.56, hbm: 0.92}\n"
    "fitted_runs: {ampere: 1555, hopper: 26, blackwell: 13}\n";

}  // namespace

TEST_CASE("a profile without Blackwell Ultra or Ada gives them Blackwell's and Ampere's coefficients, prior only") {
  scenario::Diagnostics d;
  const auto p = io::parse_profile(kThreeGenerations, "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(p.has_value(), d.str());
  // Blackwell Ultra <- Blackwell (same SM design); Ada <- Ampere (mma.sync kernels, no wgmma).
  CHECK(p->of(hardware::GpuArch::BlackwellUltra).gemm == doctest::Approx(0.5));
  CHECK(p->of(hardware::GpuArch::BlackwellUltra).hbm == doctest::Approx(0.92));
  CHECK(p->of(hardware::GpuArch::Ada).gemm == doctest::Approx(0.78));
  CHECK(p->of(hardware::GpuArch::Ada).flash_attention == doctest::Approx(0.6));
  CHECK(p->coefficients_of(hardware::GpuArch::BlackwellUltra) == hardware::GpuArch::Blackwell);
  CHECK(p->coefficients_of(hardware::GpuArch::Ada) == hardware::GpuArch::Ampere);
  CHECK(p->coefficients_of(hardware::GpuArch::Hopper) == hardware::GpuArch::Hopper);
  // No run of either generation informed them: 0, "prior only".
  CHECK(p->fitted_runs[static_cast<std::size_t>(hardware::GpuArch::BlackwellUltra)] == 0);
  CHECK(p->fitted_runs[static_cast<std::size_t>(hardware::GpuArch::Ada)] == 0);
  CHECK(p->fitted_runs[static_cast<std::size_t>(hardware::GpuArch::Blackwell)] == 13);
  // Written back, the profile still lists only what it stated.
  const std::string yaml = io::profile_to_yaml(*p);
  CHECK(yaml.find("blackwell_ultra") == std::string::npos);
  CHECK(yaml.find("ada") == std::string::npos);
  CHECK(yaml.find("fitted_runs: {ampere: 1555, hopper: 26, blackwell: 13}") != std::string::npos);
}

TEST_CASE(
    "a profile that lists a new generation keeps its own coefficients, and a user profile's stand-in is its own") {
  scenario::Diagnostics d;
  const auto base = io::parse_profile(kThreeGenerations, "base.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(base.has_value(), d.str());
  // A user profile over the base: its own Ada, and a Blackwell of its own that Blackwell Ultra follows.
  const auto p = io::parse_profile(
      "ada: {gemm: 0.7, gemm_fp8: 0.65, flash_attention: 0.5, hbm: 0.8}\n"
      "blackwell: {gemm: 0.55}\n",
      "user.yaml", *base, d);
  REQUIRE_MESSAGE(p.has_value(), d.str());
  CHECK(p->of(hardware::GpuArch::Ada).gemm == doctest::Approx(0.7));
  CHECK(p->of(hardware::GpuArch::Ada).fp8_apart);  // Ada has FP8 tensor cores: gemm_fp8 is allowed
  CHECK(p->coefficients_of(hardware::GpuArch::Ada) == hardware::GpuArch::Ada);
  CHECK(p->fitted_runs[static_cast<std::size_t>(hardware::GpuArch::Ada)] == -1);  // stated by hand: not recorded
  CHECK(p->of(hardware::GpuArch::BlackwellUltra).gemm == doctest::Approx(0.55));
  const std::string yaml = io::profile_to_yaml(*p);
  // Written back with the coefficients the file left at the built-in values (grouped_gemm 1,
  // sustained_clock 1), the tied ones (NaN) left out.
  CHECK(yaml.find("ada: {gemm: 0.7, gemm_fp8: 0.65, grouped_gemm: 1, flash_attention: 0.5, hbm: 0.8, "
                  "sustained_clock: 1}") != std::string::npos);
  CHECK(yaml.find("blackwell_ultra") == std::string::npos);
}

TEST_CASE("fitted_runs of a generation the profile gives no coefficients of is an error at its line") {
  scenario::Diagnostics bad;
  CHECK_FALSE(io::parse_profile("ampere: {gemm: 0.78}\nfitted_runs: {ampere: 3, ada: 5}\n", "bad.yaml",
                                compute::ComputeProfile{}, bad)
                  .has_value());
  CHECK_MESSAGE(bad.str().find("bad.yaml:2") != std::string::npos, bad.str());
  CHECK_MESSAGE(bad.str().find("fitted_runs.ada") != std::string::npos, bad.str());
  CHECK_MESSAGE(bad.str().find("the profile gives no ada coefficients") != std::string::npos, bad.str());
}

TEST_CASE("a generation's collective floor: its own, else its stand-in's, else the shared one") {
  scenario::Diagnostics d;
  const auto p = io::parse_profile(
      "ampere: {gemm: 0.78, collective_latency_us: 29}\n"
      "hopper: {gemm: 0.61}\n"
      "blackwell: {gemm: 0.5, collective_latency_us: 9.5}\n"
      "collective_latency_us: 20\n",
      "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(p.has_value(), d.str());
  CHECK(p->collective_latency_of(hardware::GpuArch::Ampere) == doctest::Approx(29));
  CHECK(p->collective_latency_of(hardware::GpuArch::Hopper) == doctest::Approx(20));  // none of its own: shared
  CHECK(p->collective_latency_of(hardware::GpuArch::Blackwell) == doctest::Approx(9.5));
  // Unlisted: Blackwell Ultra follows Blackwell, Ada Ampere (their stand-ins).
  CHECK(p->collective_latency_of(hardware::GpuArch::BlackwellUltra) == doctest::Approx(9.5));
  CHECK(p->collective_latency_of(hardware::GpuArch::Ada) == doctest::Approx(29));
  // Listed with a floor of its own, Blackwell Ultra keeps it.
  compute::ComputeProfile q = *p;
  q.listed[static_cast<std::size_t>(hardware::GpuArch::BlackwellUltra)] = true;
  q.of(hardware::GpuArch::BlackwellUltra).collective_latency_us = 7;
  CHECK(q.collective_latency_of(hardware::GpuArch::BlackwellUltra) == doctest::Approx(7));
  // Written back: the floors a generation states, none for one that falls back.
  const std::string yaml = io::profile_to_yaml(*p);
  CHECK(yaml.find("ampere: {gemm: 0.78") != std::string::npos);
  CHECK(yaml.find("collective_latency_us: 29}") != std::string::npos);
  CHECK(yaml.find("collective_latency_us: 9.5}") != std::string::npos);
  const auto again = io::parse_profile(yaml, "again.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(again.has_value(), d.str());
  CHECK(again->collective_latency_of(hardware::GpuArch::Hopper) == doctest::Approx(20));
  CHECK(again->collective_latency_of(hardware::GpuArch::Blackwell) == doctest::Approx(9.5));
}

TEST_CASE("a generation's collective floor out of range is an error naming the key") {
  scenario::Diagnostics d;
  const auto p = io::parse_profile("hopper: {collective_latency_us: 5000}\n", "p.yaml", compute::ComputeProfile{}, d);
  CHECK_FALSE(p.has_value());
  CHECK(d.str().find("hopper.collective_latency_us") != std::string::npos);
  CHECK(d.str().find("p.yaml:1") != std::string::npos);
}

TEST_CASE("the exposed GEMM epilogue: read, written back, refused outside 0..1 naming its line and key") {
  scenario::Diagnostics d;
  const auto p =
      io::parse_profile("gemm_k_half: 0\ngemm_epilogue_exposed: 0.74\n", "p.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(p.has_value(), d.str());
  CHECK(p->gemm_epilogue_exposed == doctest::Approx(0.74));
  const std::string yaml = io::profile_to_yaml(*p);
  CHECK(yaml.find("gemm_epilogue_exposed: 0.74\n") != std::string::npos);
  const auto again = io::parse_profile(yaml, "again.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(again.has_value(), d.str());
  CHECK(again->gemm_epilogue_exposed == doctest::Approx(0.74));
  // A profile that does not give it hides the epilogue whole, as before the key existed.
  const auto old = io::parse_profile("gemm_k_half: 32\n", "old.yaml", compute::ComputeProfile{}, d);
  REQUIRE(old.has_value());
  CHECK(old->gemm_epilogue_exposed == 0);
  scenario::Diagnostics bad;
  CHECK_FALSE(
      io::parse_profile("gemm_k_half: 0\ngemm_epilogue_exposed: 1.5\n", "bad.yaml", compute::ComputeProfile{}, bad)
          .has_value());
  CHECK(bad.str().find("bad.yaml:2") != std::string::npos);
  CHECK(bad.str().find("gemm_epilogue_exposed") != std::string::npos);
}

TEST_CASE("MXFP8 attention's coefficients: Blackwell's generations read and write them, Hopper's key is an error") {
  scenario::Diagnostics d;
  const auto p =
      io::parse_profile("blackwell: {attention_fp8: 0.46, attention_mxfp8: 0.42, attention_mxfp8_bwd: 0.31}\n",
                        "mx.yaml", compute::ComputeProfile{}, d);
  REQUIRE_MESSAGE(p.has_value(), d.str());
  const auto& bw = p->of(hardware::GpuArch::Blackwell);
  CHECK(bw.attention_of(hardware::Precision::MXFP8, false) == doctest::Approx(0.42));
  CHECK(bw.attention_of(hardware::Precision::MXFP8, true) == doctest::Approx(0.31));
  CHECK(bw.attention_of(hardware::Precision::FP8, false) == doctest::Approx(0.46));
  CHECK(io::profile_to_yaml(*p).find("attention_mxfp8: 0.42, attention_mxfp8_bwd: 0.31") != std::string::npos);
  // Hopper has no block-scaled tensor cores: the key is refused at its line.
  scenario::Diagnostics bad;
  CHECK_FALSE(
      io::parse_profile("hopper: {gemm: 0.7,\n  attention_mxfp8: 0.4}\n", "bad.yaml", compute::ComputeProfile{}, bad)
          .has_value());
  CHECK_MESSAGE(bad.str().find("bad.yaml:2") != std::string::npos, bad.str());
  CHECK_MESSAGE(bad.str().find("attention_mxfp8") != std::string::npos, bad.str());
}
