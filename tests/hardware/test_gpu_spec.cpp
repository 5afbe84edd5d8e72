// GPU generations (hardware/gpu_spec.hpp): the keys catalogs and profiles name them by, their
// compute capability, and which generation's coefficients stand in for one without its own.
#include <doctest/doctest.h>

#include "flopcast/hardware/gpu_spec.hpp"

using namespace flopcast;

TEST_CASE("every generation's key parses back to itself, and the catalog's arch takes the new ones") {
  for (GpuArch a : kGpuArchs) CHECK(parse_gpu_arch(to_string(a)) == a);
  CHECK(parse_gpu_arch("blackwell_ultra") == GpuArch::BlackwellUltra);
  CHECK(parse_gpu_arch("ada") == GpuArch::Ada);
  CHECK_FALSE(parse_gpu_arch("lovelace").has_value());
  // developer.nvidia.com/cuda-gpus: B300/GB300 10.3, L40S and RTX 4090 8.9.
  CHECK(compute_capability(GpuArch::BlackwellUltra) == 103);
  CHECK(compute_capability(GpuArch::Ada) == 89);
  CHECK_FALSE(coefficient_stand_in(GpuArch::Hopper).has_value());
}
