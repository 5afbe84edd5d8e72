#pragma once
// Internal number formatting for verdicts (not installed): fixed decimals with thousands
// separators, durations and rates in the units a claim uses.
#include <string>

#include "flopcast/claims/claimed_value.hpp"
#include "flopcast/units/money.hpp"
#include "flopcast/units/units.hpp"

namespace flopcast::claims::detail {

/// 1234567.891 -> "1,234,567.89" with `decimals` decimals.
std::string grouped(double v, int decimals);
/// A duration in a readable unit: "16.6 us", "2.50 ms", "182.8 s", "18.0 min", "2.5 h", "3,283 days".
std::string duration(units::Time t);
/// Seconds as a duration (see duration()).
std::string duration_s(double seconds);
/// A fraction as a percentage: 0.0535 -> "5.3%" (`decimals` decimals).
std::string percent(double fraction, int decimals = 1);
/// A bandwidth in the unit family the claim used: bits ("Gbps", "Gb/s") -> "192.0 Gbps (24.00 GB/s)",
/// bytes -> "24.00 GB/s (192.0 Gbps)".
std::string bandwidth(units::Bandwidth b, const std::string& claim_unit);
/// The value of `b` in the claim's unit (Gbps, Gb/s, Tbps: bits; GB/s, TB/s, MB/s: bytes).
double in_claim_unit(units::Bandwidth b, const std::string& claim_unit);
/// A time in the claim's unit (ns, us, ms, s, min, h, d).
double in_claim_unit(units::Time t, const std::string& claim_unit);
/// "1,234.56 CNY".
std::string money(units::Money m);
/// "57,600.00 CNY/node-month".
std::string price(const ClaimedPrice& p);

}  // namespace flopcast::claims::detail
