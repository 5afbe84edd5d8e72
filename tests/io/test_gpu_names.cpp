// Unknown GPU names (io::same_family_gpu, io::unknown_gpu_hint): a suggestion only within the same
// part family, and the way to add a GPU.
#include <doctest/doctest.h>

#include "flopcast/io/catalog.hpp"
#include "shipped_catalog.hpp"

using namespace flopcast;

TEST_CASE("an unknown GPU is suggested a name only of its own part family") {
  // A catalog without the H20: "H20" must not become the H200, a part with about 7x its compute.
  io::Catalog cat;
  for (const char* name : {"H200", "H800", "GB300", "B300"}) {
    hardware::GpuSpec g;
    g.name = name;
    cat.gpus.push_back(g);
  }
  hardware::GpuSpec rtx;
  rtx.name = "RTX4090";
  rtx.aliases = {"NVIDIA GeForce RTX 4090"};
  cat.gpus.push_back(rtx);
  CHECK_FALSE(io::same_family_gpu(cat, "H20").has_value());
  CHECK_FALSE(io::same_family_gpu(cat, "H2000").has_value());
  CHECK_FALSE(io::same_family_gpu(cat, "A800").has_value());
  // Misspellings of one part number: case, separators, a letter O for a zero, a suffix.
  CHECK(io::same_family_gpu(cat, "h200-sxm") == "H200");
  CHECK(io::same_family_gpu(cat, "H2O0") == "H200");
  CHECK(io::same_family_gpu(cat, "GB300-NVL72") == "GB300");
  CHECK(io::same_family_gpu(cat, "HGX-B300") == "B300");  // letters HGXB end with B
  CHECK(io::same_family_gpu(cat, "4090") == "RTX4090");
  CHECK(io::same_family_gpu(cat, "GeForce RTX 4090 24GB") == "RTX4090");
  // The hint: no suggestion for another part, the known GPUs, and how to add one.
  const std::string hint = io::unknown_gpu_hint(cat, "H20");
  CHECK(hint.find("did you mean") == std::string::npos);
  CHECK(hint.find("known GPUs: H200, H800, GB300, B300, RTX4090") == 0);
  CHECK(hint.find("gpus.yaml") != std::string::npos);
  CHECK(hint.find("--data-dir") != std::string::npos);
  CHECK(io::unknown_gpu_hint(cat, "H200x").find("did you mean 'H200'?") == 0);
}

TEST_CASE("the shipped catalog resolves the new GPUs by their usual spellings") {
  const auto& cat = test::shipped_catalog();
  for (const char* name : {"B300", "GB300", "H20", "A800", "L40S", "L20", "RTX 4090", "NVIDIA GeForce RTX 4090"})
    CHECK_MESSAGE(cat.find_gpu(name) != nullptr, name);
  CHECK(cat.find_gpu("RTX 4090")->name == "RTX4090");
  CHECK_FALSE(cat.find_gpu("RTX4090")->peer_to_peer);
  CHECK(cat.find_gpu("L40S")->peer_to_peer);
  // Dense peaks only where the part has the path: no FP8 on the A800, no FP4 on the H20.
  CHECK_FALSE(cat.find_gpu("A800-80G")->peak(hardware::Precision::FP8).has_value());
  CHECK(cat.find_gpu("H20")->peak(hardware::Precision::FP8).has_value());
  CHECK_FALSE(cat.find_gpu("H20")->peak(hardware::Precision::FP4).has_value());
  CHECK(cat.find_gpu("B300")->peak(hardware::Precision::NVFP4).has_value());
  // One-way NVLink: A800 8 links x 25 = 200, H20 18 x 25 = 450; none on the Ada cards.
  CHECK(cat.find_gpu("A800-80G")->nvlink_one_way.gbytes_per_s() == doctest::Approx(200.0));
  CHECK(cat.find_gpu("H20")->nvlink_one_way.gbytes_per_s() == doctest::Approx(450.0));
  CHECK(cat.find_gpu("L40S")->nvlink_links == 0);
}
