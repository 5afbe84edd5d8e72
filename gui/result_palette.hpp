#pragma once
/// The colours of the result tabs, one per kind of time and memory, shared by the timeline,
/// the charts and the tables' swatches so one colour means one thing everywhere. Tableau 10
/// (Tableau Software's default categorical palette): distinct for common colour-vision
/// deficiencies and readable as fills under dark text.
#include <QColor>

#include "flopcast/app/step_timeline.hpp"

namespace flopcast::gui {

/// Parts of a step's time (StepBreakdown fields).
enum class TimePart { Compute, Recompute, TpComm, CpComm, EpComm, PpComm, Bubble, DpComm, Optimizer, Overhead };
/// Parts of a GPU's memory (MemoryBreakdown fields).
enum class MemoryPart { Weights, Gradients, Optimizer, Activations, Logits, Workspace, Fragmentation };

QColor color_of(app::SliceKind k);
QColor color_of(TimePart p);
QColor color_of(MemoryPart p);
/// Black or white, whichever reads better on `fill`.
QColor text_color_on(const QColor& fill);

}  // namespace flopcast::gui
