#include "sweep_view.hpp"

#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QScatterSeries>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "log_axis.hpp"
#include "result_palette.hpp"
#include "sweep_table.hpp"

namespace flopcast::gui {
namespace {

/// Tableau 10, as result_palette.cpp: one colour per group.

}  // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent) {
  model_ = new SweepTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(SweepTableModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

  auto* v = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  auto* open = new QPushButton(tr("Open sweep CSV..."), this);
  connect(open, &QPushButton::clicked, this, &SweepView::openRequested);
  top->addWidget(open);
  info_ = new QLabel(tr("No sweep loaded. Open the CSV `flopcast sweep -o FILE.csv` writes."), this);
  info_->setWordWrap(true);
  top->addWidget(info_, 1);
  v->addLayout(top);

  // Two rows of controls, X and Y, then the colour and the filter: on one row at 1000 x 700 the
  // long column names ("parallel.sequence_parallel") and the filter's hint were cut off.
  auto* controls = new QGridLayout();
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter rows (text in any column)"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, this, &SweepView::set_filter);
  x_ = new QComboBox(this);
  y_ = new QComboBox(this);
  colour_ = new QComboBox(this);
  controls->addWidget(new QLabel(tr("X:"), this), 0, 0);
  controls->addWidget(x_, 0, 1);
  controls->addWidget(new QLabel(tr("Y:"), this), 0, 2);
  controls->addWidget(y_, 0, 3);
  controls->addWidget(new QLabel(tr("Colour by:"), this), 1, 0);
  controls->addWidget(colour_, 1, 1);
  controls->addWidget(filter_, 1, 2, 1, 2);
  controls->setColumnStretch(1, 1);
  controls->setColumnStretch(3, 1);
  v->addLayout(controls);
  for (QComboBox* c : {x_, y_, colour_}) connect(c, &QComboBox::currentIndexChanged, this, &SweepView::rebuild_chart);

  auto* split = new QSplitter(Qt::Vertical, this);
  chart_ = new QChartView(new QChart(), split);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->chart()->setAnimationOptions(QChart::NoAnimation);
  chart_->chart()->legend()->setAlignment(Qt::AlignBottom);
  chart_->chart()->legend()->setShowToolTips(true);  // an elided entry shows its whole text
  chart_->setMinimumHeight(200);
  table_ = new QTableView(split);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(-1, Qt::AscendingOrder);
  table_->setAlternatingRowColors(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  split->addWidget(chart_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({560, 300});
  v->addWidget(split, 1);
  connect(proxy_, &QAbstractItemModel::layoutChanged, this, &SweepView::rebuild_chart);
  rebuild_chart();
}

bool SweepView::open(const QString& path, QString* error) {
  auto table = read_csv(path, error);
  if (!table) return false;
  const int rows = static_cast<int>(table->rows.size());
  const int columns = static_cast<int>(table->headers.size());
  QString notes = table->notes.join(QStringLiteral("; "));
  model_->set_table(std::move(*table));
  path_ = QFileInfo(path).absoluteFilePath();
  info_->setText(tr("%1: %2 points, %3 columns%4")
                     .arg(QFileInfo(path).fileName())
                     .arg(rows)
                     .arg(columns)
                     .arg(notes.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(notes.left(200))));
  info_->setToolTip(path_);
  table_->resizeColumnsToContents();
  fill_combos();
  return true;
}

void SweepView::fill_combos() {
  const QSignalBlocker bx(x_), by(y_), bc(colour_);
  x_->clear();
  y_->clear();
  colour_->clear();
  colour_->addItem(tr("(none)"), -1);
  const CsvTable& t = model_->table();
  QList<int> numeric;
  for (int c = 0; c < static_cast<int>(t.headers.size()); ++c) {
    if (model_->is_numeric(c)) {
      numeric << c;
      x_->addItem(t.headers[c], c);
      y_->addItem(t.headers[c], c);
    }
    colour_->addItem(t.headers[c], c);
  }
  // Default: the first input against the last output; colour by the first text column.
  if (!numeric.isEmpty()) {
    const int first = numeric.size() > 1 && t.headers[numeric.front()] == QLatin1String("point") ? 1 : 0;
    x_->setCurrentIndex(first);
    y_->setCurrentIndex(static_cast<int>(numeric.size()) - 1);
  }
  for (int c = 0; c < static_cast<int>(t.headers.size()); ++c)
    if (!model_->is_numeric(c)) {
      colour_->setCurrentIndex(c + 1);
      break;
    }
  rebuild_chart();
}

bool SweepView::set_axes(const QString& x, const QString& y, const QString& colour) {
  const int xi = x_->findText(x), yi = y_->findText(y);
  const int ci = colour.isEmpty() ? 0 : colour_->findText(colour);
  if (xi < 0 || yi < 0 || ci < 0) return false;
  const QSignalBlocker bx(x_), by(y_), bc(colour_);
  x_->setCurrentIndex(xi);
  y_->setCurrentIndex(yi);
  colour_->setCurrentIndex(ci);
  rebuild_chart();
  return true;
}

void SweepView::set_filter(const QString& text) {
  if (filter_->text() != text) {
    const QSignalBlocker b(filter_);
    filter_->setText(text);
  }
  proxy_->setFilterFixedString(text);
  rebuild_chart();
}

void SweepView::rebuild_chart() {
  QChart* c = chart_->chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  plotted_ = 0;
  const int xc = x_->currentData().isValid() ? x_->currentData().toInt() : -1;
  const int yc = y_->currentData().isValid() ? y_->currentData().toInt() : -1;
  const int cc = colour_->currentData().isValid() ? colour_->currentData().toInt() : -1;
  if (xc < 0 || yc < 0) {
    c->setTitle(model_->rowCount() == 0 ? tr("Open a sweep CSV to chart it")
                                        : tr("The sweep has no numeric columns to chart"));
    return;
  }
  // Groups in order of first appearance among the filtered rows.
  std::vector<QString> order;
  std::map<QString, QScatterSeries*> groups;
  const QString other = tr("other");
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    const QVariant xv = proxy_->index(r, xc).data(SweepTableModel::NumberRole);
    const QVariant yv = proxy_->index(r, yc).data(SweepTableModel::NumberRole);
    if (!xv.isValid() || !yv.isValid()) continue;
    QString key = cc >= 0 ? proxy_->index(r, cc).data().toString() : tr("points");
    if (!groups.count(key) && static_cast<int>(groups.size()) >= kMaxGroups) key = other;
    auto& s = groups[key];
    if (!s) {
      s = new QScatterSeries();
      s->setName(cc >= 0 ? QStringLiteral("%1 = %2").arg(model_->table().headers[cc], key) : key);
      s->setMarkerSize(8);
      s->setColor(series_color(order.size()));
      s->setBorderColor(Qt::transparent);
      order.push_back(key);
    }
    const double x = xv.toDouble(), y = yv.toDouble();
    s->append(x, y);
    ++plotted_;
  }
  const QString xt = model_->table().headers[xc], yt = model_->table().headers[yc];
  c->setTitle(tr("%1 against %2 (%3 of %4 points)").arg(yt, xt).arg(plotted_).arg(model_->rowCount()));
  // Readable axes: tp, pp and other few-valued integers as categories, the rest on round,
  // grouped ticks (log_axis.hpp).
  std::vector<double> xs, ys;
  for (const QString& key : order)
    for (const QPointF& p : groups[key]->points()) {
      xs.push_back(p.x());
      ys.push_back(p.y());
    }
  auto* ax = make_value_axis(xs, xt);
  auto* ay = make_value_axis(ys, yt);
  c->addAxis(ax, Qt::AlignBottom);
  c->addAxis(ay, Qt::AlignLeft);
  for (const QString& key : order) {
    c->addSeries(groups[key]);
    groups[key]->attachAxis(ax);
    groups[key]->attachAxis(ay);
  }
  c->legend()->setVisible(order.size() > 1);
}

}  // namespace flopcast::gui
