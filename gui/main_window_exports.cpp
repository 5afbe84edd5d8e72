// MainWindow's tabs by name and what they export: each chart as PNG or SVG, and the quote as a
// PDF in English or Chinese (computed off the UI thread, as `flopcast quote` computes it).
#include <QDate>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QTabWidget>
#include <QtCharts/QChartView>
#include <QtConcurrent/QtConcurrentRun>

#include "breakdown_chart.hpp"
#include "chart_export.hpp"
#include "claims_view.hpp"
#include "cost_chart.hpp"
#include "fleet_view.hpp"
#include "main_window.hpp"
#include "memory_chart.hpp"
#include "planner_view.hpp"
#include "qt_text.hpp"
#include "scenario_computer.hpp"
#include "sweep_view.hpp"
#include "timeline_view.hpp"

namespace flopcast::gui {

QStringList MainWindow::tab_names() {
  QStringList names = {QStringLiteral("summary"), QStringLiteral("timeline"), QStringLiteral("breakdown"),
                       QStringLiteral("memory"), QStringLiteral("cost")};
  names << QStringLiteral("planner");
  names << QStringLiteral("sweep") << QStringLiteral("fleet") << QStringLiteral("claims") << QStringLiteral("yaml");
  return names;
}

bool MainWindow::select_tab(const QString& name) {
  const auto i = tab_names().indexOf(name.toLower());
  if (i < 0) return false;
  tabs_->setCurrentIndex(static_cast<int>(i));
  return true;
}

QStringList MainWindow::chart_tabs() {
  QStringList names = {QStringLiteral("timeline"), QStringLiteral("breakdown"), QStringLiteral("memory"),
                       QStringLiteral("cost")};
  names << QStringLiteral("planner");
  names << QStringLiteral("sweep") << QStringLiteral("fleet");
  return names;
}

QWidget* MainWindow::chart_widget(const QString& tab) const {
  const QString t = tab.toLower();
  if (t == QLatin1String("timeline")) return timeline_;
  if (t == QLatin1String("breakdown")) return breakdown_chart_;
  if (t == QLatin1String("memory")) return memory_chart_;
  if (t == QLatin1String("cost")) return cost_chart_;
  if (t == QLatin1String("planner")) return planner_->chart_view();
  if (t == QLatin1String("sweep")) return sweep_->chart_view();
  if (t == QLatin1String("fleet")) return fleet_->utilisation_chart();
  return nullptr;
}

bool MainWindow::export_chart(const QString& tab, const QString& path, QString* error) {
  QWidget* chart = chart_widget(tab);
  if (!chart) {
    if (error) *error = tr("the %1 tab has no chart (charts: %2)").arg(tab, chart_tabs().join(QStringLiteral(", ")));
    return false;
  }
  return export_picture(chart, path, tr("flopcast %1: %2").arg(tab, document_label()), error);
}

void MainWindow::action_export_chart(bool svg) {
  const QString tab = tab_names().value(tabs_->currentIndex());
  QWidget* chart = chart_widget(tab);
  if (!chart) {
    QMessageBox::information(
        this, tr("No chart"),
        tr("The current tab has no chart. Charts: %1.").arg(chart_tabs().join(QStringLiteral(", "))));
    return;
  }
  export_interactively(chart, svg ? PictureFormat::Svg : PictureFormat::Png,
                       QStringLiteral("%1-%2").arg(QFileInfo(document_label()).completeBaseName(), tab),
                       tr("flopcast %1: %2").arg(tab, document_label()));
}

QuoteDocument MainWindow::quote_document(const std::string& date, const std::string& customer,
                                         quote::QuoteLanguage language) const {
  const auto r = result();
  if (!r) {
    QuoteDocument none;
    none.errors.push_back("nothing computed yet");
    return none;
  }
  return make_quote_document(*r, *catalog_, date, customer, language);
}

void MainWindow::action_export_quote(quote::QuoteLanguage language) {
  const auto r = result();
  if (quote_running_) return;
  if (!r || !r->ok() || computing()) {
    QMessageBox::information(
        this, tr("No quote yet"),
        tr("The quote is made from the scenario's results: wait for them and fix any errors first."));
    return;
  }
  QSettings settings;
  const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export quote as PDF"),
      QDir(dir).filePath(QFileInfo(document_label()).completeBaseName() + (language == quote::QuoteLanguage::ZhCn
                                                                               ? QStringLiteral("-quote-zh.pdf")
                                                                               : QStringLiteral("-quote.pdf"))),
      tr("PDF documents (*.pdf)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) path += QStringLiteral(".pdf");
  const std::string date = QDate::currentDate().toString(Qt::ISODate).toStdString();
  // The quote runs the whole-run Monte Carlo again, as `flopcast quote` does: off the UI thread.
  quote_running_ = true;
  status_text_->setText(tr("preparing the quote..."));
  auto* watcher = new QFutureWatcher<QuoteDocument>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path] {
    quote_running_ = false;
    watcher->deleteLater();
    const QuoteDocument doc = watcher->result();
    if (!doc.ok()) {
      QStringList why;
      for (const auto& e : doc.errors) why << q(e);
      status_text_->setText(tr("no quote"));
      QMessageBox::warning(this, tr("No quote"),
                           tr("No quote for this scenario:\n%1").arg(why.join(QLatin1Char('\n'))));
      return;
    }
    QString error;
    if (!write_quote_pdf(doc, path, &error)) {
      status_text_->setText(tr("the quote was not written"));
      QMessageBox::critical(this, tr("Cannot export the quote"), error);
      return;
    }
    status_text_->setText(tr("wrote %1: quote %2").arg(QDir::toNativeSeparators(path), q(doc.summary)));
  });
  auto catalog = catalog_;
  watcher->setFuture(QtConcurrent::run(
      [r, catalog, date, language] { return make_quote_document(*r, *catalog, date, {}, language); }));
}

}  // namespace flopcast::gui
