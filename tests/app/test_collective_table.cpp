// app::collective_table_request and app::collective_table: nccl-tests' flags checked (each wrong
// one named with what it takes), sizes as nccl-tests reads them, one row per size.
#include <doctest/doctest.h>

#include <string>

#include "flopcast/app/collective_table.hpp"
#include "shipped_catalog.hpp"

namespace flopcast::app {

TEST_SUITE("app.collective_table") {
  TEST_CASE("nccl-tests sizes: K, M, G, T are powers of 1024, byte strings are read as units") {
    CHECK(*nccl_size_bytes("8") == 8.0);
    CHECK(*nccl_size_bytes("1K") == 1024.0);
    CHECK(*nccl_size_bytes("8g") == 8.0 * 1024 * 1024 * 1024);
    CHECK(*nccl_size_bytes("512 MiB") == 512.0 * 1024 * 1024);
    CHECK_FALSE(nccl_size_bytes("-1K").has_value());
    CHECK_FALSE(nccl_size_bytes("lots").has_value());
    CHECK(*nccl_dtype_bytes("bfloat16") == 2.0);
    CHECK_FALSE(nccl_dtype_bytes("fp4").has_value());
  }

  TEST_CASE("a wrong flag is named with what it takes") {
    // The defaults (all_reduce of float from 8 B to 8 GiB by 2) with one flag changed.
    const auto error_with = [](const auto& change) {
      CollectiveTableFlags f;
      change(f);
      std::string error;
      CHECK_FALSE(collective_table_request(f, error).has_value());
      return error;
    };
    CHECK(error_with([](auto& f) { f.op = "all_sum"; }).find("--op 'all_sum': expected all_reduce") == 0);
    CHECK(error_with([](auto& f) { f.min_size = "16G"; }).find("with min <= max") != std::string::npos);
    CHECK(error_with([](auto& f) { f.min_size = "0"; }).find("--min must be > 0 bytes") == 0);
    CHECK(error_with([](auto& f) { f.step_factor = 1.0001; }).find("more than 10000: raise --step-factor") !=
          std::string::npos);
    CHECK(error_with([](auto& f) { f.proto = "LL64"; }) == "--proto 'LL64': expected LL, LL128 or Simple");
  }

  TEST_CASE("one row per size from --min to --max, all-gather sizes in whole arrays of the group's pieces") {
    CollectiveTableFlags f;
    f.op = "all_gather";
    f.min_size = "1M";
    f.max_size = "16M";
    f.dtype = "bfloat16";
    std::string error;
    const auto req = collective_table_request(f, error);
    REQUIRE_MESSAGE(req.has_value(), error);
    const auto& cat = test::shipped_catalog();
    const hardware::GpuSpec& gpu = *cat.find_gpu("H800");
    const hardware::FabricSpec& fabric = *cat.find_fabric(gpu.default_fabric);
    const comm::CommModel model(gpu, fabric, 8, comm::CommOptions{});
    const topology::GroupShape shape{8, 8, 1};
    const auto t = collective_table(*req, model, shape, 1);
    REQUIRE(t.rows.size() == 5);  // 1, 2, 4, 8, 16 MiB
    CHECK(t.rows[0]["size_bytes"].get<double>() == 1024.0 * 1024.0);
    CHECK(t.rows[0]["count"].get<double>() == 1024.0 * 1024.0 / 2.0 / 8.0);  // elements per rank
    CHECK(t.rows[4]["time_us"].get<double>() > t.rows[0]["time_us"].get<double>());
    const std::string text = collective_table_text(*req, {gpu, fabric, 8, std::nullopt}, model, shape, t);
    CHECK(text.find("# flopcast collective: all_gather on 8 x H800") == 0);
  }
}

}  // namespace flopcast::app
