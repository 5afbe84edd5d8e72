#pragma once
/// Durations, sizes, counts and plain numbers as people read them: the one set of formatters the
/// CLI, the application layer, the GUI and the core's own messages use.
///
/// Rounding: every function rounds the exact binary value of its argument correctly. Where it is
/// exactly halfway (2.25 to one decimal), the functions without a suffix round half to even as
/// C's printf does ("2.2"); those ending in _half_up round half away from zero as Qt's
/// QString::number and QLocale do ("2.3"). The GUI's figures always used Qt's rule, everything
/// else printf's; both are kept so that no figure changes by a digit.
#include <cstdint>
#include <string>

#include "flopcast/units/units.hpp"

namespace flopcast::units {

/// `v` with `decimals` digits after the point, ties to even: "12.35". decimals in [0, 17].
std::string format_fixed(double v, int decimals);
/// As format_fixed with ties away from zero (Qt's rounding): "2.3" for 2.25. decimals in [0, 4].
std::string format_fixed_half_up(double v, int decimals);
/// `v` with at most `max_decimals` decimals, trailing zeros (and a trailing point) dropped: "12.5".
std::string format_decimal(double v, int max_decimals);
/// An integer with thousands separators: "1,234,567", "-12,000".
std::string format_grouped(std::int64_t v);
/// format_fixed_half_up with thousands separators in the integer part: "36,652.5" (QLocale English).
std::string format_grouped_half_up(double v, int decimals);

/// A count with a suffix, three significant digits: "1.4T", "300B", "8.03B", "12.5K", "950".
std::string format_count(double v);
/// A count with a spaced suffix and two decimals: "1.40 T", "8.03 B", "950" (quotes).
std::string format_count_fixed(double v);

/// A size in GiB with one decimal: "12.3 GiB".
std::string format_gib(Bytes b);

/// A time on the scale of a step: "8.647 s", "45.60 ms", "789.0 us", "2.5 h", "3.1 days"
/// (days from two days on).
std::string format_time(Time t);
/// A long duration: "22.5 s", "10.0 min", "2.5 h", "25.3 days" (days from two days on).
std::string format_duration(Time t);
/// A short duration: "3.2 h" under two days, else "4.1 d".
std::string format_duration_brief(Time t);
/// A duration with its hours: "25.3 days (607.2 h)" from a day on, "2.5 h", "42.0 min".
std::string format_duration_with_hours(Time t);
/// Hours to a tenth, trailing zeros dropped: "12.5 h", "3 h"; under an hour minutes: "42.3 min".
std::string format_hours_or_minutes(Time t);
/// Seconds with one decimal: "1798.6 s".
std::string format_seconds(Time t);
/// Days with one decimal: "23.9 days".
std::string format_days(Time t);
/// Days with one decimal from a day on, else hours: "23.9 days", "6.0 h" (ties away from zero).
std::string format_days_or_hours_half_up(Time t);

/// A fraction as a percentage, no space: "41%" (decimals 0), "41.2%" (decimals 1).
std::string format_percent(double fraction, int decimals);

}  // namespace flopcast::units
