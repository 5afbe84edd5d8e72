#pragma once
/// Chart axes with readable labels. A log-scale axis that labels 1, 2 and 5 of every decade with grouped numbers
/// ("1", "2", "5", "10", ..., "1,000", "2,000"): Qt's QLogValueAxis labels decades only, which
/// leaves a range within one decade with a single label. The series plot log10 of their
/// values (log_coord) on a linear category axis whose labels sit at the ticks.
#include <QString>

#include <vector>

class QCategoryAxis;

namespace flopcast::gui {

/// The 1-2-5 ticks of every decade within [lo, hi] (lo > 0); when that gives fewer than
/// three, every integer multiple of the decade (1..9) instead.
std::vector<double> log_ticks_125(double lo, double hi);

/// A tick's label: grouped, with the decimals a value under 10 needs ("0.5", "2", "1,000").
QString log_tick_label(double v);

/// Where value `v` (> 0) is plotted on a log axis: log10(v).
double log_coord(double v);

/// An axis over [lo, hi] (values, lo > 0) in log coordinates, labelled at log_ticks_125, or at
/// the powers of ten alone when those are more than `max_labels` (and the decades give at
/// least two): a narrow chart's labels then stay whole instead of being elided.
QCategoryAxis* make_log_axis(double lo, double hi, const QString& title, std::size_t max_labels = 1000);

/// Round ticks (steps of 1, 2 or 5 times a power of ten) within [lo, hi], about `target` of them.
std::vector<double> linear_ticks(double lo, double hi, int target = 6);

/// A linear axis for the values `values` (any order): categorical (a label at each distinct
/// value) when there are at most 12 distinct integers within +-100,000 (tp, pp, counts), else linear_ticks with
/// grouped labels ("2,500,000", never "2500000.0").
QCategoryAxis* make_value_axis(std::vector<double> values, const QString& title);

}  // namespace flopcast::gui
