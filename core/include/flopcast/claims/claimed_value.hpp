#pragma once
/// A figure as a claim states it ("< 3 us", "190 Gbps", "6.8 CNY/GPU-hour", "38%"), read once
/// in io and kept in base units together with the unit the claim used, so a verdict can speak
/// in the claim's own units.
#include <optional>
#include <string>

#include "flopcast/pricing/price_catalog.hpp"
#include "flopcast/units/money.hpp"

namespace flopcast::claims {

/// What a claimed figure measures.
enum class Dimension {
  Time,       ///< seconds
  Bandwidth,  ///< bytes per second
  Bytes,      ///< bytes
  FlopRate,   ///< FLOP/s
  Power,      ///< watts
  Fraction,   ///< a percentage as a fraction: "38%" = 0.38, "-8%" = -0.08
  Ratio,      ///< a plain factor: "3.2x"
  Count,      ///< a plain number ("1.2T" tokens)
  Money,      ///< an amount of money ("10,900 USD", "1.2M CNY")
  Price,      ///< a price per GPU or node per billing unit ("6.8 CNY/GPU-hour")
};

/// "time", "bandwidth", "size", "compute rate", "power", "percentage", "ratio", "number",
/// "amount of money", "price".
const char* to_string(Dimension d);

/// How a claimed figure bounds the truth.
enum class Bound {
  Exact,    ///< "6.8 CNY/GPU-hour", "190 Gbps"
  AtMost,   ///< "< 3 us", "<= 90 s"
  AtLeast,  ///< "> 50%", ">= 1.5 h"
};

/// A price as a claim states it: an amount per GPU or node per billing unit.
struct ClaimedPrice {
  units::PriceRate rate;  ///< exact, in the claim's currency
  pricing::PriceBasis basis = pricing::PriceBasis::PerGpu;
  pricing::BillingUnit unit = pricing::BillingUnit::Hour;
  /// "GPU-hour", "node-month".
  std::string per() const;
};

/// One claimed figure.
struct ClaimedValue {
  Dimension dimension = Dimension::Count;
  /// In base units: s, B/s, B, FLOP/s, W, fraction, ratio or count; for Money and Price the
  /// amount in major units (display only: `money` and `price` are exact).
  double value = 0.0;
  Bound bound = Bound::Exact;
  std::optional<units::Money> money;  ///< Dimension::Money
  std::optional<ClaimedPrice> price;  ///< Dimension::Price
  std::string unit;                   ///< the unit as written: "Gbps", "GB/s", "us", "TFLOPS", "W"
  std::string text;                   ///< the whole value as written: "< 3 us"
};

}  // namespace flopcast::claims
