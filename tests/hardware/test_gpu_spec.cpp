// GPU generations (hardware/gpu_spec.hpp): the keys catalogs and profiles name them by, their
// compute capability, and which generation's coefficients stand in for one without its own.
#include <doctest/doctest.h>

#include "flopcast/hardware/gpu_spec.hpp"

using namespace flopcast;

TEST_CASE("every generation's key parses back to itself, and the catalog's arch takes the new ones") {
  for (hardware::GpuArch a : hardware::kGpuArchs) CHECK(hardware::parse_gpu_arch(to_string(a)) == a);
  CHECK(hardware::parse_gpu_arch("blackwell_ultra") == hardware::GpuArch::BlackwellUltra);
  CHECK(hardware::parse_gpu_arch("ada") == hardware::GpuArch::Ada);
  CHECK_FALSE(hardware::parse_gpu_arch("lovelace").has_value());
  // developer.nvidia.com/cuda-gpus: B300/GB300 10.3, L40S and RTX 4090 8.9.
  CHECK(hardware::compute_capability(hardware::GpuArch::BlackwellUltra) == 103);
  CHECK(hardware::compute_capability(hardware::GpuArch::Ada) == 89);
  CHECK_FALSE(hardware::coefficient_stand_in(hardware::GpuArch::Hopper).has_value());
}
