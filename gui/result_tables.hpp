#pragma once
/// The rows of the result tables, built from a ComputeResult, and the parts of a step's time
/// and of a GPU's memory that the tables and charts share. Values carry their units in the
/// text ("12.3 ms", "45.6 GiB", "41.2 %").
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "figure_table_model.hpp"
#include "flopcast/app/compute_result.hpp"
#include "result_palette.hpp"

namespace flopcast::gui {

/// One part of the step time: label and time.
struct TimePartValue {
  TimePart part;
  QString label;
  units::Time time;
};
/// The ten parts of StepBreakdown, in the order the simulate report prints them.
std::vector<TimePartValue> time_parts(const estimate::StepBreakdown& b);

/// One part of a GPU's memory: label and size.
struct MemoryPartValue {
  MemoryPart part;
  QString label;
  units::Bytes bytes;
};
/// The seven parts of MemoryBreakdown.
std::vector<MemoryPartValue> memory_parts(const workload::MemoryBreakdown& m);

QStringList summary_headers();    ///< Figure, Value, Detail
QStringList breakdown_headers();  ///< Part, Time, Share of step
QStringList memory_headers();     ///< Part, Size, Share of HBM
QStringList run_headers();        ///< Figure, Value, Detail
QStringList bill_headers();       ///< Plan, P50 total, P90 total, Billed GPU time, Note
QStringList stage_headers();      ///< Stage, Layers, Forward, Backward, Recompute, Exposed comm, P2P, Per micro-batch

/// Key figures of the step and of the whole run (Summary tab). Empty when the scenario has errors.
std::vector<TableRow> summary_rows(const app::ComputeResult& r);
/// Where the step time goes, with a total.
std::vector<TableRow> breakdown_rows(const app::ComputeResult& r);
/// Memory per GPU by part, total, HBM and headroom.
std::vector<TableRow> memory_rows(const app::ComputeResult& r);
/// Whole-run figures: failure-free time and GPU-hours, and the Monte Carlo's P50/P90 when built.
std::vector<TableRow> run_rows(const app::ComputeResult& r);
/// The bill of each plan at P50 and P90 (empty when pricing is not loaded).
std::vector<TableRow> bill_rows(const app::ComputeResult& r);

/// Per-micro-batch times of each pipeline stage (Timeline tab); the slowest stage in bold.
std::vector<TableRow> stage_rows(const app::ComputeResult& r);

/// "41.2 %"
QString percent_text(double fraction);
/// "12.3 days", "4.5 h"
QString days_text(units::Time t);
/// The row of the comparison the quote recommends (the provider's cheapest plan; competitor
/// plans are references, never recommended); nullopt without pricing.
std::optional<std::size_t> recommended_row(const app::ComputeResult& r);
/// A plan as every tab names it: "H800 80G, daily, 200G RDMA included (h800-daily)".
QString plan_name(const pricing::PlanOption& o);

}  // namespace flopcast::gui
