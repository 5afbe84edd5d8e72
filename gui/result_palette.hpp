#pragma once
/// The colours of the result tabs, one per kind of time and memory, shared by the timeline,
/// the charts and the tables' swatches so one colour means one thing everywhere. Tableau 10
/// (Tableau Software's default categorical palette): distinct for common colour-vision
/// deficiencies and readable as fills under dark text.
#include <QColor>

#include <cstddef>

#include "flopcast/app/step_timeline.hpp"

namespace flopcast::gui {

/// Parts of a step's time (StepBreakdown fields).
enum class TimePart { Compute, Recompute, TpComm, CpComm, EpComm, PpComm, Bubble, DpComm, Optimizer, Overhead };
/// Parts of a GPU's memory (MemoryBreakdown fields).
enum class MemoryPart { Weights, Gradients, Optimizer, Activations, Logits, Workspace, Fragmentation };

/// The bars of a bill or a run's length: the P50 and P90 run, the failure-free run.
enum class RunSeries { P50, P90, FailureFree };

QColor color_of(app::SliceKind k);
QColor color_of(TimePart p);
QColor color_of(MemoryPart p);
QColor color_of(RunSeries s);
/// The i-th colour of Tableau 10, cycling: one per series of a chart (GPU type, pool, group).
QColor series_color(std::size_t i);
/// The i-th cost-over-the-calendar curve (blue, orange, green, red, purple, cycling).
QColor cost_curve_color(std::size_t i);
/// Black or white, whichever reads better on `fill`.
QColor text_color_on(const QColor& fill);

}  // namespace flopcast::gui
