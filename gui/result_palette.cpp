#include "result_palette.hpp"

#include <iterator>

namespace flopcast::gui {
namespace {
// Tableau 10.
const QColor kBlue(0x4E, 0x79, 0xA7);
const QColor kOrange(0xF2, 0x8E, 0x2B);
const QColor kRed(0xE1, 0x57, 0x59);
const QColor kTeal(0x76, 0xB7, 0xB2);
const QColor kGreen(0x59, 0xA1, 0x4F);
const QColor kYellow(0xED, 0xC9, 0x48);
const QColor kPurple(0xB0, 0x7A, 0xA1);
const QColor kPink(0xFF, 0x9D, 0xA7);
const QColor kBrown(0x9C, 0x75, 0x5F);
const QColor kGrey(0xBA, 0xB0, 0xAC);
const QColor kSeries[] = {kBlue, kOrange, kRed, kTeal, kGreen, kYellow, kPurple, kPink, kBrown, kGrey};
// Tableau 20's light blue: the P90 bar beside the P50 one.
const QColor kLightBlue(0xA0, 0xCB, 0xE8);
}  // namespace

QColor color_of(app::SliceKind k) {
  switch (k) {
    case app::SliceKind::Forward:
      return kBlue;
    case app::SliceKind::Backward:
      return kOrange;
    case app::SliceKind::Recompute:
      return kPurple;
    case app::SliceKind::Comm:
    case app::SliceKind::TpComm:
      return kRed;
    case app::SliceKind::CpComm:
      return kPink;
    case app::SliceKind::EpComm:
      return kYellow;
    case app::SliceKind::P2P:
      return kTeal;
    case app::SliceKind::DpSync:
      return kGreen;
    case app::SliceKind::Optimizer:
      return kBrown;
    case app::SliceKind::Overhead:
      return kGrey;
  }
  return kGrey;
}

QColor color_of(TimePart p) {
  switch (p) {
    case TimePart::Compute:
      return kBlue;
    case TimePart::Recompute:
      return kPurple;
    case TimePart::TpComm:
      return kRed;
    case TimePart::CpComm:
      return kPink;
    case TimePart::EpComm:
      return kYellow;
    case TimePart::PpComm:
      return kTeal;
    case TimePart::Bubble:
      return QColor(0xD9, 0xD9, 0xD9);
    case TimePart::DpComm:
      return kGreen;
    case TimePart::Optimizer:
      return kBrown;
    case TimePart::Overhead:
      return kGrey;
  }
  return kGrey;
}

QColor color_of(MemoryPart p) {
  switch (p) {
    case MemoryPart::Weights:
      return kBlue;
    case MemoryPart::Gradients:
      return kOrange;
    case MemoryPart::Optimizer:
      return kGreen;
    case MemoryPart::Activations:
      return kPurple;
    case MemoryPart::Logits:
      return kYellow;
    case MemoryPart::Workspace:
      return kTeal;
    case MemoryPart::Fragmentation:
      return kGrey;
  }
  return kGrey;
}

QColor color_of(RunSeries s) {
  switch (s) {
    case RunSeries::P50:
      return kBlue;
    case RunSeries::P90:
      return kLightBlue;
    case RunSeries::FailureFree:
      return kGreen;
  }
  return kGrey;
}

QColor series_color(std::size_t i) { return kSeries[i % std::size(kSeries)]; }

QColor cost_curve_color(std::size_t i) {
  static const QColor curves[] = {kBlue, kOrange, kGreen, kRed, kPurple};
  return curves[i % std::size(curves)];
}

QColor text_color_on(const QColor& fill) {
  // Relative luminance weights of ITU-R BT.709.
  const double y = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
  return y > 0.5 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace flopcast::gui
