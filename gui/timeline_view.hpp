#pragma once
/// Gantt chart of one training step (flopcast/app/step_timeline.hpp): one row per pipeline stage
/// (and one for its sends), slices coloured by kind, a time axis, the estimate's step time as
/// a dashed line. Wheel zooms around the cursor (Shift+wheel scrolls rows), dragging pans,
/// double-click fits, hovering shows "F mb3 stage 2: 12.3 ms".
#include <QAbstractScrollArea>

#include <optional>

#include "flopcast/app/step_timeline.hpp"

class QPainter;

namespace flopcast::gui {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);

  /// Shows `t`; keeps the zoom factor and the scrolled fraction of the previous timeline.
  void set_timeline(app::Timeline t);
  const app::Timeline& timeline() const { return timeline_; }

  /// Zoom factor: 1 = the whole step fits the width.
  double zoom() const { return zoom_; }
  /// Sets the zoom factor, keeping the time under viewport x `anchor_x` in place.
  void set_zoom(double zoom, int anchor_x);
  /// Back to zoom 1.
  void fit();

  /// The slice under viewport point `pos`, or nullptr.
  const app::TimelineSlice* slice_at(QPoint pos) const;
  /// Tooltip of a slice: "F mb3 stage 2: 12.30 ms" and its start.
  static QString describe(const app::TimelineSlice& s);

  QSize sizeHint() const override { return {900, 400}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  int plot_left() const;
  int plot_width() const;
  double px_per_ns() const;
  int base_content_height() const;  ///< rows at their unscaled heights
  double row_scale() const;         ///< 1..kMaxRowScale: rows fill a view taller than they need
  int row_height(const app::TimelineRow& row) const;
  int content_height() const;
  int row_top(std::size_t row) const;  ///< in content coordinates (before vertical scroll)
  void update_scrollbars();
  void draw_axis(QPainter& p, double t0_ns, double ns_per_px);
  void draw_legend(QPainter& p);

  app::Timeline timeline_;
  double zoom_ = 1.0;
  std::optional<QPoint> drag_from_;
  int drag_scroll_ = 0;
  const app::TimelineSlice* hovered_ = nullptr;
};

}  // namespace flopcast::gui
