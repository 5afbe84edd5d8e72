#include "claim_format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace flopcast::claims::detail {

std::string grouped(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const auto dot = s.find('.');
  std::string whole = s.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  // No "-0.0": a value that rounds to zero prints unsigned.
  const bool negative = v < 0 && std::stod(s) != 0.0;
  return (negative ? "-" : "") + out + frac;
}

std::string duration_s(double s) {
  const double a = std::fabs(s);
  if (a >= 86400 * 2) return grouped(s / 86400, a >= 86400 * 100 ? 0 : 1) + " days";
  if (a >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (a >= 600) return fmt::format("{:.1f} min", s / 60);
  if (a >= 1) return fmt::format("{:.1f} s", s);
  if (a >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string duration(units::Time t) { return duration_s(t.seconds()); }

std::string percent(double fraction, int decimals) { return fmt::format("{:.{}f}%", fraction * 100, decimals); }

namespace {
bool is_bits(const std::string& unit) {
  return unit.find("bps") != std::string::npos || unit.find("b/s") != std::string::npos;
}
}  // namespace

double in_claim_unit(units::Bandwidth b, const std::string& u) {
  const double bits = b.bytes_per_s * 8;
  if (u.rfind("Tb", 0) == 0) return bits / 1e12;
  if (u.rfind("Gb", 0) == 0) return bits / 1e9;
  if (u.rfind("Mb", 0) == 0) return bits / 1e6;
  if (u.rfind("TB", 0) == 0) return b.bytes_per_s / 1e12;
  if (u.rfind("MB", 0) == 0) return b.bytes_per_s / 1e6;
  return b.gbytes_per_s();
}

std::string bandwidth(units::Bandwidth b, const std::string& claim_unit) {
  if (is_bits(claim_unit)) return fmt::format("{:.1f} Gbps ({:.2f} GB/s)", b.bytes_per_s * 8 / 1e9, b.gbytes_per_s());
  return fmt::format("{:.2f} GB/s ({:.1f} Gbps)", b.gbytes_per_s(), b.bytes_per_s * 8 / 1e9);
}

double in_claim_unit(units::Time t, const std::string& u) {
  const double s = t.seconds();
  if (u == "ns") return s * 1e9;
  if (u == "us" || u == "µs") return s * 1e6;
  if (u == "ms") return s * 1e3;
  if (u == "min") return s / 60;
  if (u == "h") return s / 3600;
  if (u == "d" || u == "days" || u == "day") return s / 86400;
  return s;
}

std::string money(units::Money m) { return m.str(); }

std::string price(const ClaimedPrice& p) { return p.rate.amount_str() + " " + p.rate.currency.str() + "/" + p.per(); }

}  // namespace flopcast::claims::detail
