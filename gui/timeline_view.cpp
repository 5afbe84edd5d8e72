#include "timeline_view.hpp"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "flopcast/units/format.hpp"
#include "result_palette.hpp"

namespace flopcast::gui {
namespace {

constexpr int kLabelWidth = 118;
constexpr int kAxisHeight = 34;
constexpr int kRowHeight = 30;
constexpr int kCommRowHeight = 20;
constexpr int kLegendHeight = 30;
constexpr int kRightMargin = 18;
constexpr double kMaxRowScale = 2.0;  // rows grow up to 2x to fill a tall view
constexpr double kZoomStep = 1.25;    // per wheel notch (120 units)
constexpr double kMinNsPerPx = 10.0;  // deepest zoom: 10 ns per pixel
constexpr int kTickSpacingPx = 90;    // wanted distance between axis labels

QString short_label(const app::TimelineSlice& s) {
  if (!s.name.empty() && s.kind != app::SliceKind::P2P) return QString::fromStdString(s.name);
  const QString mb = QString::number(s.microbatch);
  switch (s.kind) {
    case app::SliceKind::Forward:
      return QStringLiteral("F") + mb;
    case app::SliceKind::Backward:
      return QStringLiteral("B") + mb;
    case app::SliceKind::Recompute:
      return QStringLiteral("R") + mb;
    case app::SliceKind::Comm:
      return QStringLiteral("comm");
    case app::SliceKind::TpComm:
      return QStringLiteral("TP");
    case app::SliceKind::CpComm:
      return QStringLiteral("CP");
    case app::SliceKind::EpComm:
      return QStringLiteral("EP");
    case app::SliceKind::P2P:
      return QString();
    case app::SliceKind::DpSync:
      return QStringLiteral("DP sync");
    case app::SliceKind::Optimizer:
      return QStringLiteral("optimizer");
    case app::SliceKind::Overhead:
      return QStringLiteral("host");
  }
  return QString();
}

QString time_text(units::Time t) { return QString::fromStdString(units::format_time(t)); }

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
  viewport()->setMouseTracking(true);
  setFocusPolicy(Qt::WheelFocus);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  horizontalScrollBar()->setSingleStep(20);
  verticalScrollBar()->setSingleStep(kRowHeight);
}

void TimelineView::set_timeline(app::Timeline t) {
  const double span = plot_width() * zoom_;
  const double left_fraction = span > 0 ? horizontalScrollBar()->value() / span : 0.0;
  hovered_ = nullptr;
  timeline_ = std::move(t);
  // No taller than the rows at their largest: a short pipeline leaves room below.
  setMaximumHeight(timeline_.empty() ? QWIDGETSIZE_MAX
                                     : kAxisHeight + kLegendHeight + 8 + 2 * frameWidth() +
                                           static_cast<int>(kMaxRowScale * base_content_height()) +
                                           horizontalScrollBar()->sizeHint().height());
  update_scrollbars();
  horizontalScrollBar()->setValue(static_cast<int>(std::lround(left_fraction * plot_width() * zoom_)));
  viewport()->update();
}

void TimelineView::set_zoom(double zoom, int anchor_x) {
  const double end_ns = static_cast<double>(std::max<std::int64_t>(1, timeline_.end.ns));
  const double max_zoom = std::max(1.0, end_ns / (std::max(1, plot_width()) * kMinNsPerPx));
  zoom = std::clamp(zoom, 1.0, max_zoom);
  const double old_ppn = px_per_ns();
  const double anchor = std::clamp(anchor_x - plot_left(), 0, plot_width());
  const double t_anchor = old_ppn > 0 ? (horizontalScrollBar()->value() + anchor) / old_ppn : 0.0;
  zoom_ = zoom;
  update_scrollbars();
  horizontalScrollBar()->setValue(static_cast<int>(std::lround(t_anchor * px_per_ns() - anchor)));
  viewport()->update();
}

void TimelineView::fit() { set_zoom(1.0, plot_left()); }

int TimelineView::plot_left() const { return kLabelWidth; }
int TimelineView::plot_width() const { return std::max(10, viewport()->width() - kLabelWidth - kRightMargin); }

double TimelineView::px_per_ns() const {
  const double end_ns = static_cast<double>(std::max<std::int64_t>(1, timeline_.end.ns));
  return plot_width() * zoom_ / end_ns;
}

int TimelineView::base_content_height() const {
  int h = 0;
  for (const auto& row : timeline_.rows) h += row.comm ? kCommRowHeight : kRowHeight;
  return h;
}

double TimelineView::row_scale() const {
  const int base = base_content_height();
  const int rows_h = viewport()->height() - kAxisHeight - kLegendHeight - 4;
  if (base <= 0 || rows_h <= base) return 1.0;
  return std::min(kMaxRowScale, static_cast<double>(rows_h) / base);
}

int TimelineView::row_height(const app::TimelineRow& row) const {
  return static_cast<int>((row.comm ? kCommRowHeight : kRowHeight) * row_scale());
}

int TimelineView::row_top(std::size_t row) const {
  int y = 0;
  for (std::size_t i = 0; i < row && i < timeline_.rows.size(); ++i) y += row_height(timeline_.rows[i]);
  return y;
}

int TimelineView::content_height() const { return row_top(timeline_.rows.size()) + 4; }

void TimelineView::update_scrollbars() {
  const int w = plot_width();
  horizontalScrollBar()->setPageStep(w);
  horizontalScrollBar()->setRange(0, std::max(0, static_cast<int>(std::lround(w * zoom_)) - w));
  const int rows_h = std::max(0, viewport()->height() - kAxisHeight - kLegendHeight);
  verticalScrollBar()->setPageStep(std::max(1, rows_h));
  verticalScrollBar()->setRange(0, std::max(0, content_height() - rows_h));
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  update_scrollbars();
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

const app::TimelineSlice* TimelineView::slice_at(QPoint pos) const {
  if (timeline_.empty() || pos.x() < plot_left() || pos.y() < kAxisHeight) return nullptr;
  if (pos.y() >= viewport()->height() - kLegendHeight) return nullptr;
  const int y = pos.y() - kAxisHeight + verticalScrollBar()->value();
  std::size_t row = 0;
  int top = 0;
  for (; row < timeline_.rows.size(); ++row) {
    const int h = row_height(timeline_.rows[row]);
    if (y < top + h) break;
    top += h;
  }
  if (row >= timeline_.rows.size()) return nullptr;
  const double ppn = px_per_ns();
  if (ppn <= 0) return nullptr;
  const double t = (pos.x() - plot_left() + horizontalScrollBar()->value()) / ppn;
  const double tolerance = 2.0 / ppn;  // narrow slices are still hoverable
  const auto& slices = timeline_.rows[row].slices;
  auto it = std::lower_bound(slices.begin(), slices.end(), t - tolerance,
                             [](const app::TimelineSlice& s, double v) { return static_cast<double>(s.end.ns) < v; });
  // Prefer the slice that contains t; else the nearest within the tolerance.
  for (auto j = it; j != slices.end() && static_cast<double>(j->start.ns) <= t + tolerance; ++j)
    if (static_cast<double>(j->start.ns) <= t && t <= static_cast<double>(j->end.ns)) return &*j;
  if (it != slices.end() && static_cast<double>(it->start.ns) <= t + tolerance) return &*it;
  return nullptr;
}

QString TimelineView::describe(const app::TimelineSlice& s) {
  QString what = QString::fromLatin1(app::slice_label(s.kind));
  if (!s.name.empty()) {
    return QStringLiteral("%1 (%2), stage %3: %4\nfrom %5 to %6")
        .arg(QString::fromStdString(s.name), what)
        .arg(s.stage)
        .arg(time_text(s.duration()), time_text(s.start), time_text(s.end));
  }
  if (s.microbatch >= 0) what += QStringLiteral(" mb%1").arg(s.microbatch);
  QString where = QStringLiteral("stage %1").arg(s.stage);
  if (s.kind == app::SliceKind::P2P)
    where = QStringLiteral("stage %1 %2 %3").arg(s.stage).arg(QChar(0x2192)).arg(s.to_stage);
  return QStringLiteral("%1 %2: %3\nfrom %4 to %5")
      .arg(what, where, time_text(s.duration()), time_text(s.start), time_text(s.end));
}

void TimelineView::draw_axis(QPainter& p, double t0_ns, double ns_per_px) {
  const int w = viewport()->width();
  p.fillRect(QRect(0, 0, w, kAxisHeight), palette().window());
  p.setPen(palette().color(QPalette::Mid));
  p.drawLine(0, kAxisHeight - 1, w, kAxisHeight - 1);
  // A 1-2-5 step whose labels are at least kTickSpacingPx apart.
  const double raw = kTickSpacingPx * ns_per_px;
  double step = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (step * m >= raw) {
      step *= m;
      break;
    }
  }
  const double end = static_cast<double>(timeline_.end.ns);
  double unit = 1e3;
  QString unit_name = QStringLiteral("us");
  if (end >= 2e9) {
    unit = 1e9;
    unit_name = QStringLiteral("s");
  } else if (end >= 2e6) {
    unit = 1e6;
    unit_name = QStringLiteral("ms");
  }
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step / unit) + 1e-9)));
  const double t1 = t0_ns + plot_width() * ns_per_px;
  const int rows_bottom = viewport()->height() - kLegendHeight;
  for (double t = std::ceil(t0_ns / step) * step; t <= t1 + 0.5 * step; t += step) {
    const double x = plot_left() + (t - t0_ns) / ns_per_px;
    if (x < plot_left() - 0.5 || x > plot_left() + plot_width() + 0.5) continue;
    p.setPen(QColor(0, 0, 0, 30));
    p.drawLine(QPointF(x, kAxisHeight), QPointF(x, rows_bottom));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, kAxisHeight - 1));
    const QString label = QString::number(t / unit, 'f', decimals) + QLatin1Char(' ') + unit_name;
    p.drawText(QRectF(x - 60, 2, 120, kAxisHeight - 10), Qt::AlignHCenter | Qt::AlignBottom, label);
  }
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRect(6, 2, kLabelWidth - 10, kAxisHeight - 8), Qt::AlignLeft | Qt::AlignBottom,
             QString::fromStdString(timeline_.schedule).toUpper());
}

void TimelineView::draw_legend(QPainter& p) {
  const int top = viewport()->height() - kLegendHeight;
  p.fillRect(QRect(0, top, viewport()->width(), kLegendHeight), palette().window());
  p.setPen(palette().color(QPalette::Mid));
  p.drawLine(0, top, viewport()->width(), top);
  bool present[app::kSliceKinds] = {};
  for (const auto& row : timeline_.rows)
    for (const auto& s : row.slices) present[static_cast<int>(s.kind)] = true;
  std::vector<std::pair<app::SliceKind, QString>> entries;
  for (int k = 0; k < app::kSliceKinds; ++k) {
    if (!present[k]) continue;
    const auto kind = static_cast<app::SliceKind>(k);
    QString label = QString::fromLatin1(app::slice_label(kind));
    if (kind == app::SliceKind::Forward) label = QStringLiteral("forward");
    if (kind == app::SliceKind::Backward) label = QStringLiteral("backward");
    if (kind == app::SliceKind::Recompute) label = QStringLiteral("recompute");
    if (kind == app::SliceKind::Comm) label = QStringLiteral("TP/CP/EP");
    if (kind == app::SliceKind::Overhead) label = QStringLiteral("host");
    entries.emplace_back(kind, label);
  }
  // One line: a smaller font when the entries would not fit the width (never clipped).
  QFont legend_font = font();
  const auto width_of = [&](const QFontMetrics& m) {
    int w = 8;
    for (const auto& e : entries) w += 19 + m.horizontalAdvance(e.second) + 14;
    if (timeline_.estimate_step.ns > 0) w += 23 + m.horizontalAdvance(QStringLiteral("estimate"));
    return w;
  };
  while (legend_font.pointSizeF() > 6 && width_of(QFontMetrics(legend_font)) > viewport()->width())
    legend_font.setPointSizeF(legend_font.pointSizeF() - 0.5);
  p.setFont(legend_font);
  const QFontMetrics fm(legend_font);
  int x = 8;
  for (const auto& [kind, label] : entries) {
    p.fillRect(QRect(x, top + 9, 14, 12), color_of(kind));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QPoint(x + 19, top + 20), label);
    x += 19 + fm.horizontalAdvance(label) + 14;
  }
  if (timeline_.estimate_step.ns > 0) {
    QPen dash(QColor(0x33, 0x33, 0x33), 1.5, Qt::DashLine);
    p.setPen(dash);
    p.drawLine(x, top + 15, x + 18, top + 15);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QPoint(x + 23, top + 20), QStringLiteral("estimate"));
  }
  p.setFont(font());
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  p.fillRect(viewport()->rect(), palette().base());
  if (timeline_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No timeline: the scenario has errors (see the editor)."));
    return;
  }
  const double ppn = px_per_ns();
  const double ns_per_px = 1.0 / ppn;
  const double hs = horizontalScrollBar()->value();
  const int vs = verticalScrollBar()->value();
  const double t0 = hs * ns_per_px;
  const double t1 = (hs + plot_width()) * ns_per_px;
  const int rows_bottom = viewport()->height() - kLegendHeight;
  const QRect rows_area(0, kAxisHeight, viewport()->width(), rows_bottom - kAxisHeight);
  const QRect plot_area(plot_left(), kAxisHeight, plot_width() + kRightMargin, rows_bottom - kAxisHeight);

  // Row backgrounds and labels (stages alternate shades).
  p.setClipRect(rows_area);
  for (std::size_t i = 0; i < timeline_.rows.size(); ++i) {
    const app::TimelineRow& row = timeline_.rows[i];
    const int y = kAxisHeight + row_top(i) - vs;
    const int h = row_height(row);
    if (y + h < kAxisHeight || y > rows_bottom) continue;
    const QColor band = row.stage % 2 ? palette().color(QPalette::AlternateBase) : palette().color(QPalette::Base);
    p.fillRect(QRect(0, y, viewport()->width(), h), band);
    QFont f = font();
    if (row.comm) f.setPointSizeF(f.pointSizeF() * 0.85);
    p.setFont(f);
    p.setPen(row.comm ? palette().color(QPalette::PlaceholderText) : palette().color(QPalette::WindowText));
    p.drawText(QRect(8, y, kLabelWidth - 12, h), Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(row.label));
  }
  p.setFont(font());
  p.setClipping(false);
  draw_axis(p, t0, ns_per_px);

  // Slices: only those in the visible time window; runs of sub-pixel slices draw once per pixel.
  p.setClipRect(plot_area);
  const QFontMetrics fm(font());
  for (std::size_t i = 0; i < timeline_.rows.size(); ++i) {
    const app::TimelineRow& row = timeline_.rows[i];
    const int y = kAxisHeight + row_top(i) - vs;
    const int h = row_height(row);
    if (y + h < kAxisHeight || y > rows_bottom) continue;
    const auto& slices = row.slices;
    auto it = std::lower_bound(slices.begin(), slices.end(), t0,
                               [](const app::TimelineSlice& s, double v) { return static_cast<double>(s.end.ns) < v; });
    double last_px = -1e9;
    for (; it != slices.end() && static_cast<double>(it->start.ns) <= t1; ++it) {
      const double x0 = plot_left() + static_cast<double>(it->start.ns) * ppn - hs;
      const double x1 = plot_left() + static_cast<double>(it->end.ns) * ppn - hs;
      if (x1 - x0 < 1.0 && std::floor(x0) <= last_px) continue;
      last_px = std::floor(x1);
      const QRectF r(x0, y + 3, std::max(1.0, x1 - x0), h - 6);
      const QColor fill = color_of(it->kind);
      p.fillRect(r, fill);
      if (r.width() >= 4) {
        p.setPen(QPen(fill.darker(130), 1));
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
      }
      const QString label = short_label(*it);
      if (!label.isEmpty() && r.width() > fm.horizontalAdvance(label) + 6) {
        p.setPen(text_color_on(fill));
        p.drawText(r, Qt::AlignCenter, label);
      }
      if (&*it == hovered_) {
        p.setPen(QPen(palette().color(QPalette::WindowText), 2));
        p.drawRect(r.adjusted(-1, -1, 1, 1));
      }
    }
  }
  // The closed-form estimate's step time, for comparison with the laid-out schedule.
  if (timeline_.estimate_step.ns > 0) {
    const double x = plot_left() + static_cast<double>(timeline_.estimate_step.ns) * ppn - hs;
    p.setPen(QPen(QColor(0x33, 0x33, 0x33), 1.5, Qt::DashLine));
    p.drawLine(QPointF(x, kAxisHeight), QPointF(x, rows_bottom));
  }
  p.setClipping(false);
  draw_legend(p);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0.0) {
    QAbstractScrollArea::wheelEvent(event);
    return;
  }
  if (event->modifiers() & Qt::ShiftModifier) {
    verticalScrollBar()->setValue(verticalScrollBar()->value() - static_cast<int>(notches * kRowHeight));
  } else {
    set_zoom(zoom_ * std::pow(kZoomStep, notches), static_cast<int>(event->position().x()));
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    drag_from_ = event->position().toPoint();
    drag_scroll_ = horizontalScrollBar()->value();
    viewport()->setCursor(Qt::ClosedHandCursor);
  }
  QAbstractScrollArea::mousePressEvent(event);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_from_) {
    horizontalScrollBar()->setValue(drag_scroll_ - (event->position().toPoint().x() - drag_from_->x()));
    return;
  }
  const app::TimelineSlice* s = slice_at(event->position().toPoint());
  if (s != hovered_) {
    hovered_ = s;
    viewport()->update();
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  drag_from_.reset();
  viewport()->unsetCursor();
  QAbstractScrollArea::mouseReleaseEvent(event);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) { fit(); }

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const int centre = plot_left() + plot_width() / 2;
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      set_zoom(zoom_ * kZoomStep, centre);
      return;
    case Qt::Key_Minus:
      set_zoom(zoom_ / kZoomStep, centre);
      return;
    case Qt::Key_0:
      fit();
      return;
    default:
      QAbstractScrollArea::keyPressEvent(event);
  }
}

bool TimelineView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const app::TimelineSlice* s = slice_at(help->pos()))
      QToolTip::showText(help->globalPos(), describe(*s), viewport());
    else
      QToolTip::hideText();
    return true;
  }
  if (event->type() == QEvent::Leave && hovered_) {
    hovered_ = nullptr;
    viewport()->update();
  }
  return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace flopcast::gui
