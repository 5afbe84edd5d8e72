// flopcast-gui tests (QtTest, headless), the result tabs: Cost, Sweep, Planner, Fleet, Claims
// and Timeline with their figures, the chart and quote exports, and a screenshot of every tab
// that is not blank and fits 1000 x 700.
#include "cli_context.hpp"
#include "gui_test_support.hpp"

using namespace flopcast;
using namespace flopcast::gui;
using namespace flopcast::gui::test;
using namespace flopcast::app;

class GuiTabsTest : public GuiTestBase {
  Q_OBJECT

 private slots:
  void initTestCase() { init_environment(); }
  void cost_tab_bills_each_plan_when_pricing_is_loaded();
  void charts_export_as_png_and_svg();
  void quote_pdf_has_the_cli_quote_content();
  void sweep_tab_sorts_filters_and_charts();
  void planner_front_click_loads_the_plan();
  void planner_best_is_the_simulated_run_it_names();
  void fleet_tab_shows_utilisation_and_queue();
  void claims_tab_shows_every_verdict_and_its_computation();
  void timeline_tab_draws_the_simulated_step();
  void timeline_shows_cp_communication_apart();
  void screenshot_of_each_tab_is_not_blank();
  void screenshot_of_each_tab_is_not_blank_data();
  void every_tab_fits_1000_by_700();
  void every_tab_fits_1000_by_700_data();
};

void GuiTabsTest::cost_tab_bills_each_plan_when_pricing_is_loaded() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  auto* catalogs = qobject_cast<QComboBox*>(w.editor()->field(QStringLiteral("pricing.catalog")));
  QVERIFY(catalogs);
  const int seed = catalogs->findData(QStringLiteral("seed-vendor"));
  QVERIFY(seed > 0);
  catalogs->setCurrentIndex(seed);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const auto r = w.result();
  QVERIFY2(r->ok(), r->diags.str().c_str());
  QVERIFY(r->scenario->has_pricing);
  FigureTableModel* bills = w.models().back();
  QVERIFY(bills->rowCount() > 0);
  QVERIFY(w.cost_chart()->shows_bills());
  // The cheapest plan is marked, as compare_plans decided.
  int cheapest = 0;
  for (const auto& row : bills->rows()) cheapest += row.emphasis ? 1 : 0;
  QCOMPARE(cheapest, 1);
  QVERIFY(w.current_yaml().find("catalog: seed-vendor") != std::string::npos);
  // Cost over the calendar: one curve per cheapest option, never decreasing, each ending at
  // that option's P90 bill.
  QVERIFY(w.cost_calendar()->curves() > 0);
  QCOMPARE(static_cast<int>(r->calendar.size()), w.cost_calendar()->curves());
  for (const auto& curve : r->calendar) {
    QVERIFY(curve.points.size() > 2);
    for (std::size_t i = 1; i < curve.points.size(); ++i)
      QVERIFY(curve.points[i].total.minor >= curve.points[i - 1].total.minor);
    bool matched = false;
    for (const auto& row : r->plans()->rows)
      if (row.option.label == curve.label) matched = row.p90.total.minor == curve.points.back().total.minor;
    QVERIFY2(matched, curve.label.c_str());
  }
  // Model uncertainty: a shaded span from where the P90 run ends with the step at the band's
  // P10 to where it ends at its P90 (H800: a Hopper band), around the curves' end.
  QVERIFY(r->report.run && r->report.run->band_p10 && r->report.run->band_p90);
  const double lo = r->report.run->band_p10->gpu_span_p90.days();
  const double hi = r->report.run->band_p90->gpu_span_p90.days();
  QVERIFY(lo < r->report.run->result.gpu_span_p90.days() && r->report.run->result.gpu_span_p90.days() < hi);
  int areas = 0;
  for (QAbstractSeries* series : w.cost_calendar()->chart()->series()) {
    auto* area = qobject_cast<QAreaSeries*>(series);
    if (!area) continue;
    ++areas;
    QVERIFY2(area->name().startsWith(QStringLiteral("model uncertainty: the run ends between %1 and %2 days")
                                         .arg(lo, 0, 'f', 1)
                                         .arg(hi, 0, 'f', 1)),
             qPrintable(area->name()));
    QCOMPARE(area->upperSeries()->at(0).x(), lo);
    QCOMPARE(area->upperSeries()->at(1).x(), hi);
  }
  QCOMPARE(areas, 1);
  w.cost_calendar()->resize(900, 500);
  QVERIFY(w.cost_calendar()->grab().save(shot_path(QStringLiteral("gui-cost-calendar.png"))));
}

void GuiTabsTest::charts_export_as_png_and_svg() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  w.resize(kScreenshotWidth, kScreenshotHeight);
  w.show();
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY(w.open_sweep(write_sweep_csv()));
  for (const QString& tab : MainWindow::chart_tabs()) {
    if (tab == QLatin1String("planner")) continue;  // empty until a search ran: planner test
    QVERIFY(w.select_tab(tab));
    QTest::qWait(50);
    QWidget* chart = w.chart_widget(tab);
    QVERIFY2(chart && chart->isVisible(), qPrintable(tab));
    const QString png = tmp_.filePath(QStringLiteral("export-%1.png").arg(tab));
    const QString svg = tmp_.filePath(QStringLiteral("export-%1.svg").arg(tab));
    QString error;
    QVERIFY2(w.export_chart(tab, png, &error), qPrintable(error));
    QVERIFY2(w.export_chart(tab, svg, &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), chart->size() * 2);
    QVERIFY2(distinct_colours(image, 16) >= 16, qPrintable(tab));
    QSvgRenderer renderer(svg);
    QVERIFY2(renderer.isValid(), qPrintable(tab));
    QCOMPARE(renderer.viewBox().size(), chart->size());
    // The drawing has content: rendered back, it is not one flat colour.
    QImage back(chart->size(), QImage::Format_ARGB32);
    back.fill(Qt::white);
    QPainter painter(&back);
    renderer.render(&painter);
    painter.end();
    QVERIFY2(distinct_colours(back, 16) >= 16, qPrintable(tab));
    QVERIFY(read_all(svg).find("<svg") != std::string::npos);
  }
  QString error;
  QVERIFY(!w.export_chart(QStringLiteral("cost"), tmp_.filePath(QStringLiteral("x.jpg")), &error));
  QVERIFY2(error.contains(QStringLiteral(".png or .svg")), qPrintable(error));
  QVERIFY(!w.export_chart(QStringLiteral("summary"), tmp_.filePath(QStringLiteral("x.png")), &error));
  QVERIFY(!w.chart_widget(QStringLiteral("yaml")));
}

void GuiTabsTest::quote_pdf_has_the_cli_quote_content() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const std::string date = "2026-03-02";
  const QuoteDocument doc = w.quote_document(date, "ACME");
  QVERIFY2(doc.ok(), doc.errors.empty() ? "no html" : doc.errors.front().c_str());
  // The same HTML `flopcast quote` writes for the same file and date.
  const std::string file = kQuickstart.toStdString();
  const char* argv[] = {"flopcast", "quote",      file.c_str(), "--format", "html",
                        "--date",   date.c_str(), "--customer", "ACME"};
  std::ostringstream out, err;
  QCOMPARE(cli::run(9, argv, out, err), 0);
  QVERIFY(out.str() == doc.html);
  QVERIFY(doc.html.find(doc.id) != std::string::npos);
  QVERIFY(doc.html.find("ACME") != std::string::npos);
  const QString pdf = tmp_.filePath(QStringLiteral("quote.pdf"));
  QString error;
  QVERIFY2(write_quote_pdf(doc, pdf, &error), qPrintable(error));
  const std::string bytes = read_all(pdf);
  QVERIFY(bytes.rfind("%PDF-", 0) == 0);
  QVERIFY(bytes.size() > 2000);
  // In Chinese: the HTML of `flopcast quote --lang zh-CN`, the same quote id, a Chinese title.
  const QuoteDocument zh = w.quote_document(date, "ACME", quote::QuoteLanguage::ZhCn);
  QVERIFY2(zh.ok(), zh.errors.empty() ? "no html" : zh.errors.front().c_str());
  const char* argv_zh[] = {"flopcast",   "quote",      file.c_str(), "--format", "html", "--date",
                           date.c_str(), "--customer", "ACME",       "--lang",   "zh-CN"};
  std::ostringstream out_zh, err_zh;
  QCOMPARE(cli::run(11, argv_zh, out_zh, err_zh), 0);
  QVERIFY(out_zh.str() == zh.html);
  QCOMPARE(zh.id, doc.id);
  QCOMPARE(QString::fromStdString(zh.title), QStringLiteral("训练报价单 ") + QString::fromStdString(doc.id));
  QVERIFY(zh.html != doc.html);
  const QString pdf_zh = tmp_.filePath(QStringLiteral("quote-zh.pdf"));
  QVERIFY2(write_quote_pdf(zh, pdf_zh, &error), qPrintable(error));
  QVERIFY(read_all(pdf_zh).rfind("%PDF-", 0) == 0);
  // An edited scenario is a different quote.
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(4);
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.dp")))->setValue(16);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const QuoteDocument edited = w.quote_document(date, "ACME");
  QVERIFY(edited.ok());
  QVERIFY(edited.id != doc.id);
  // A scenario with errors has no quote, and says why.
  qobject_cast<QSpinBox*>(w.editor()->field(QStringLiteral("parallel.tp")))->setValue(3);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  const QuoteDocument none = w.quote_document(date);
  QVERIFY(!none.ok());
  QVERIFY(!none.errors.empty());
}

void GuiTabsTest::sweep_tab_sorts_filters_and_charts() {
  SweepView view;
  QAbstractItemModelTester model_tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester proxy_tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QString error;
  QVERIFY2(view.open(write_sweep_csv(), &error), qPrintable(error));
  QCOMPARE(view.model()->rowCount(), 12);
  QCOMPARE(view.model()->columnCount(), 6);
  // Numbers sort as numbers: gpus 8 < 16 < 64 (as text "16" < "64" < "8").
  const int gpus = static_cast<int>(view.model()->table().headers.indexOf(QStringLiteral("gpus")));
  view.proxy()->sort(gpus, Qt::AscendingOrder);
  QCOMPARE(view.proxy()->index(0, gpus).data().toString(), QStringLiteral("8"));
  QCOMPARE(view.proxy()->index(11, gpus).data().toString(), QStringLiteral("64"));
  view.proxy()->sort(gpus, Qt::DescendingOrder);
  QCOMPARE(view.proxy()->index(0, gpus).data().toString(), QStringLiteral("64"));
  // The chart plots every row, then only the filtered ones.
  QVERIFY(view.set_axes(QStringLiteral("gpus"), QStringLiteral("days"), QStringLiteral("gpu")));
  QCOMPARE(view.plotted_points(), 12);
  QCOMPARE(view.chart_view()->chart()->series().size(), 2);  // one per GPU type
  view.set_filter(QStringLiteral("h800"));
  QCOMPARE(view.proxy()->rowCount(), 6);
  QCOMPARE(view.plotted_points(), 6);
  QCOMPARE(view.chart_view()->chart()->series().size(), 1);
  view.set_filter(QString());
  QVERIFY(!view.set_axes(QStringLiteral("gpu"), QStringLiteral("days")));  // not a number column
  // A bad file leaves the table as it was.
  const QString bad = tmp_.filePath(QStringLiteral("bad-sweep.csv"));
  QVERIFY(write_all(bad, "point,gpus\n0,8\n1\n"));
  QVERIFY(!view.open(bad, &error));
  QVERIFY2(error.contains(QStringLiteral("bad-sweep.csv:3")), qPrintable(error));
  QCOMPARE(view.model()->rowCount(), 12);
}

void GuiTabsTest::planner_front_click_loads_the_plan() {
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(wait_for_results(w, kTimeoutMs));
  PlannerView* planner = w.planner_view();
  planner->set_gpu_types({QStringLiteral("H800")});
  planner->set_gpus_max(64);
  QSignalSpy finished(planner, &PlannerView::finished);
  planner->run();
  QVERIFY(planner->running());
  QVERIFY(finished.wait(5 * kTimeoutMs));
  QCOMPARE(finished.first().at(0).toBool(), true);
  QVERIFY(planner->result().has_value());
  QVERIFY(!planner->result()->pareto.empty());
  QVERIFY(!planner->points().empty());
  QCOMPARE(planner->front_table()->rowCount(), static_cast<int>(planner->result()->pareto.size()));
  // Clicking the front's first point loads its plan; the result follows.
  const search::PricedPlan chosen = planner->result()->pareto.front();
  std::size_t at = planner->points().size();
  for (std::size_t i = 0; i < planner->points().size(); ++i)
    if (planner->points()[i].candidate.index == chosen.candidate.index) at = i;
  QVERIFY(at < planner->points().size());
  QSignalSpy updated(&w, &MainWindow::resultsUpdated);
  const int undo_before = w.undo_stack()->count();
  planner->choose(at);
  const io::ScenarioForm f = w.editor()->form_state();
  QCOMPARE(f.gpus, chosen.candidate.gpus);
  QCOMPARE(f.tp, std::int64_t{chosen.candidate.plan.tp});
  QCOMPARE(f.pp, std::int64_t{chosen.candidate.plan.pp});
  QCOMPARE(f.dp, chosen.candidate.plan.dp);
  QCOMPARE(f.micro_batch, chosen.candidate.plan.micro_batch);
  QVERIFY(wait_for_results(w, kTimeoutMs));
  QVERIFY2(w.result()->ok(), w.result()->diags.str().c_str());
  QCOMPARE(w.result()->scenario->plan.tp, chosen.candidate.plan.tp);
  QCOMPARE(w.result()->scenario->cluster.gpus, chosen.candidate.gpus);
  // One undo step brings the old plan back.
  if (w.undo_stack()->count() > undo_before) {
    w.undo_stack()->undo();
    QCOMPARE(w.editor()->form_state().tp, std::int64_t{2});
  }
  // Cancel drops a running search.
  QSignalSpy cancelled(planner, &PlannerView::cancelled);
  planner->run();
  planner->cancel();
  QCOMPARE(cancelled.count(), 1);
  QVERIFY(!planner->running());
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("planner"), shot_path(QStringLiteral("gui-planner-test.png")), &error),
           qPrintable(error));
}

void GuiTabsTest::planner_best_is_the_simulated_run_it_names() {
  // Once "Best" paired the closed form's expected days with the bill at P90 with the model's
  // band, and named a 487-day plan "Best" when no deadline was given.
  PlannerRequest req;
  req.yaml = read_all(kQuickstart);
  req.file = "quickstart.yaml";
  req.gpu_types = {"H800"};
  req.gpus_max = 64;
  req.deadline = units::Time::from_seconds(60.0 * 86'400);
  const PlannerOutcome out = run_planner(req, *catalog_);
  QVERIFY(out.result.has_value());
  const search::PlanResult& r = *out.result;
  QVERIFY(r.chosen.has_value());
  const search::Resimulated& x = *r.chosen;
  const QString text = planner_summary(r, true);
  // The days and the bill of the same simulated run, each named: P50, and P90 at the band's factor.
  const auto days = [](units::Time t) { return QString::number(t.days(), 'f', 1) + QStringLiteral(" days"); };
  QVERIFY2(text.contains(days(x.wall_p50) + QStringLiteral(" and ") + QString::fromStdString(x.cost_p50.str()) +
                         QStringLiteral(" at P50")),
           qPrintable(text));
  QVERIFY2(text.contains(days(x.wall) + QStringLiteral(" and ") + QString::fromStdString(x.cost.str()) +
                         QStringLiteral(" at P90 with the step at the band's x")),
           qPrintable(text));
  QVERIFY(text.contains(QStringLiteral("Best (cheapest meeting the deadline and budget")));
  // Without a deadline or a budget the cheapest plan is not called the best: it is the slowest.
  req.deadline.reset();
  const PlannerOutcome open = run_planner(req, *catalog_);
  QVERIFY(open.result.has_value());
  const QString unconstrained = planner_summary(*open.result, false);
  QVERIFY2(!unconstrained.contains(QStringLiteral("Best")), qPrintable(unconstrained));
  QVERIFY2(unconstrained.contains(QStringLiteral("No deadline or budget: the cheapest plan")),
           qPrintable(unconstrained));
  QVERIFY(unconstrained.contains(QStringLiteral("set a deadline")));
}

void GuiTabsTest::fleet_tab_shows_utilisation_and_queue() {
  MainWindow w(catalog_);
  FleetView* fleet = w.fleet_view();
  QSignalSpy finished(fleet, &FleetView::finished);
  // A bad file: the loader's file:line message, nothing shown.
  const QString bad = tmp_.filePath(QStringLiteral("bad-fleet.yaml"));
  QVERIFY(write_all(bad, "name: bad\npools:\n  - {name: p, gpu: H801, nodes: 2}\n"));
  w.open_fleet(bad);
  QVERIFY(finished.wait(kTimeoutMs));
  QCOMPARE(finished.last().at(0).toBool(), false);
  QVERIFY2(fleet->error_text().contains(QStringLiteral("bad-fleet.yaml:")), qPrintable(fleet->error_text()));
  QVERIFY(!fleet->result());
  // A shipped fleet: one utilisation line per pool, the queue lines, values in range.
  w.open_fleet(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/fleets/company-quarter.yaml"));
  QVERIFY(fleet->running());
  QVERIFY(finished.wait(5 * kTimeoutMs));
  QVERIFY2(finished.last().at(0).toBool(), qPrintable(fleet->error_text()));
  QVERIFY(fleet->result().has_value());
  const auto& ts = fleet->result()->series;
  QVERIFY(!ts.bin_start.empty());
  QCOMPARE(fleet->utilisation_chart()->chart()->series().size(), static_cast<qsizetype>(ts.pools.size()));
  QCOMPARE(fleet->queue_chart()->chart()->series().size(), qsizetype{3});
  for (QAbstractSeries* a : fleet->utilisation_chart()->chart()->series()) {
    auto* line = qobject_cast<QLineSeries*>(a);
    QVERIFY(line);
    QCOMPARE(line->count(), static_cast<int>(ts.bin_start.size()));
    for (const QPointF& p : line->points()) QVERIFY(p.y() >= 0 && p.y() <= 100.0 + 1e-9);
  }
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("fleet"), shot_path(QStringLiteral("gui-fleet-test.png")), &error),
           qPrintable(error));
  QVERIFY(distinct_colours(fleet->grab().toImage(), 32) >= 32);
}

void GuiTabsTest::claims_tab_shows_every_verdict_and_its_computation() {
  MainWindow w(catalog_);
  ClaimsView* claims = w.claims_view();
  QAbstractItemModelTester tester(claims->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QSignalSpy finished(claims, &ClaimsView::finished);
  // A file that is not a claims file: the loader's file:line message, nothing shown.
  const QString bad = tmp_.filePath(QStringLiteral("bad-claims.yaml"));
  QVERIFY(write_all(bad, "- not\n- a mapping\n"));
  claims->open(bad);
  QVERIFY(finished.wait(kTimeoutMs));
  QCOMPARE(finished.last().at(0).toBool(), false);
  QVERIFY2(claims->error_text().contains(QStringLiteral("bad-claims.yaml:1:1")), qPrintable(claims->error_text()));
  QCOMPARE(claims->model()->rowCount(), 0);
  // The seed vendor's claims: the same verdicts `flopcast check` prints, one row each.
  claims->open(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml"));
  QVERIFY(finished.wait(5 * kTimeoutMs));
  QVERIFY2(finished.last().at(0).toBool(), qPrintable(claims->error_text()));
  ClaimsTableModel* model = claims->model();
  QCOMPARE(model->rowCount(), 44);
  QCOMPARE(model->columnCount(), int{ClaimsTableModel::ColumnCount});
  const auto expected = check_claims(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml", *catalog_);
  QVERIFY(expected.report);
  for (int row = 0; row < model->rowCount(); ++row) {
    const auto& r = expected.report->results[static_cast<std::size_t>(row)];
    QCOMPARE(model->index(row, ClaimsTableModel::Claim).data().toString(), QString::fromStdString(r.id));
    QCOMPARE(model->index(row, ClaimsTableModel::Verdict).data().toString(), QString::fromStdString(r.verdict.word()));
  }
  // Selecting a row opens its computation: the arithmetic of "38% cheaper" against the two plans.
  int row = -1;
  for (int i = 0; i < model->rowCount(); ++i)
    if (model->index(i, ClaimsTableModel::Claim).data().toString() == QLatin1String("monthly-38pct-cheaper")) row = i;
  QVERIFY(row >= 0);
  claims->select_row(row);
  const QString details = claims->details_text();
  QVERIFY2(details.contains(QStringLiteral("verdict   contradicts a100-node-month-price, a100-hourly-price")),
           qPrintable(details));
  QVERIFY2(details.contains(QStringLiteral("57,600.00 CNY")) && details.contains(QStringLiteral("39,168.00 CNY")),
           qPrintable(details));
  QVERIFY(
      model->index(row, ClaimsTableModel::Verdict).data(Qt::ToolTipRole).toString().contains(QStringLiteral("47.1%")));
  w.resize(kScreenshotWidth, kScreenshotHeight);
  QString error;
  QVERIFY2(save_screenshot(w, QStringLiteral("claims"), shot_path(QStringLiteral("gui-claims-test.png")), &error),
           qPrintable(error));
  QVERIFY(distinct_colours(claims->grab().toImage(), 16) >= 16);
}

void GuiTabsTest::timeline_tab_draws_the_simulated_step() {
  // Quickstart with a 4-stage pipeline: every stage forwards and backwards every micro-batch.
  std::string yaml = read_all(kQuickstart);
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"pp: 1", "pp: 4"}, {"dp: 32", "dp: 8"}}) {
    const auto at = yaml.find(from);
    QVERIFY(at != std::string::npos);
    yaml.replace(at, from.size(), to);
  }
  const auto r = compute_scenario(yaml, "pp4.yaml", *catalog_);
  QVERIFY2(r && r->ok(), r ? r->diags.str().c_str() : "cancelled");
  QVERIFY(r->report.sim.has_value());
  const Timeline& t = r->timeline;
  QVERIFY(t.simulated);
  QCOMPARE(t.microbatches, std::int64_t{512 / 8});
  // One row per (stage, stream) that ran something, named as the simulator names its tracks.
  QVERIFY(t.rows.size() >= 4);
  std::vector<int> forwards(4, 0), backwards(4, 0);
  for (const auto& row : t.rows) {
    QVERIFY(!row.label.empty());
    QVERIFY(row.stage >= 0 && row.stage < 4);
    for (std::size_t i = 0; i < row.slices.size(); ++i) {
      const auto& x = row.slices[i];
      QVERIFY(x.start <= x.end);
      QVERIFY(x.end <= t.end);
      if (i > 0) QVERIFY(row.slices[i - 1].end <= x.start);  // a track runs one task at a time
      if (!row.comm && x.kind == SliceKind::Forward) ++forwards[static_cast<std::size_t>(row.stage)];
      if (!row.comm && x.kind == SliceKind::Backward && x.name.rfind("B", 0) == 0)
        ++backwards[static_cast<std::size_t>(row.stage)];
      if (row.comm) QVERIFY(x.kind != SliceKind::Forward && x.kind != SliceKind::Backward);
    }
  }
  for (int st = 0; st < 4; ++st) {
    QCOMPARE(forwards[static_cast<std::size_t>(st)], 64);
    QCOMPARE(backwards[static_cast<std::size_t>(st)], 64);
  }
  // The simulated step is the report's step; the closed form is kept for comparison.
  QCOMPARE(r->report.est.step, r->report.sim->step);
  QCOMPARE(t.estimate_step, r->report.closed_form_step);
  // Hover text names the simulator's slice.
  const app::TimelineSlice* first = nullptr;
  for (const auto& row : t.rows)
    if (!row.comm && !row.slices.empty()) first = &row.slices.front();
  QVERIFY(first);
  QVERIFY2(TimelineView::describe(*first).startsWith(QString::fromStdString(first->name)),
           qPrintable(TimelineView::describe(*first)));
}

void GuiTabsTest::timeline_shows_cp_communication_apart() {
  // Quickstart with context parallelism 16 across two nodes (tp 2 cp 16 dp 2): 512 tokens per
  // rank, too few to hide the K/V exchange behind attention, so the simulated step has exposed CP
  // communication (simulate: 14.4 s of it), drawn in its own colour, apart from TP's.
  std::string yaml = read_all(kQuickstart);
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"cp: 1", "cp: 16"}, {"dp: 32", "dp: 2"}}) {
    const auto at = yaml.find(from);
    QVERIFY(at != std::string::npos);
    yaml.replace(at, from.size(), to);
  }
  const auto r = compute_scenario(yaml, "cp16.yaml", *catalog_);
  QVERIFY2(r && r->ok(), r ? r->diags.str().c_str() : "cancelled");
  const Timeline& t = r->timeline;
  QVERIFY(t.simulated);
  int cp = 0, tp = 0, mixed = 0;
  for (const auto& row : t.rows)
    for (const auto& x : row.slices) {
      cp += x.kind == SliceKind::CpComm;
      tp += x.kind == SliceKind::TpComm;
      mixed += x.kind == SliceKind::Comm;
    }
  QVERIFY(cp > 0);
  QVERIFY(tp > 0);
  QCOMPARE(mixed, 0);  // the simulated timeline names each collective's group
  QVERIFY(color_of(SliceKind::CpComm) != color_of(SliceKind::TpComm));
  QCOMPARE(QString::fromLatin1(app::slice_label(SliceKind::CpComm)), QStringLiteral("CP comm"));
}

void GuiTabsTest::screenshot_of_each_tab_is_not_blank() {
  QFETCH(QString, tab);
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(w.open_sweep(write_sweep_csv()));
  w.claims_view()->open(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml"));
  w.resize(kScreenshotWidth, kScreenshotHeight);
  const QString path = shot_path(QStringLiteral("gui-%1.png").arg(tab));
  QString error;
  QVERIFY2(save_screenshot(w, tab, path, &error), qPrintable(error));
  const QImage image(path);
  QCOMPARE(image.size(), QSize(kScreenshotWidth, kScreenshotHeight));
  QVERIFY(distinct_colours(image, 64) >= 64);
  // The tab's own area has content, not just the editor beside it.
  const QImage page = w.tabs()->currentWidget()->grab().toImage();
  QVERIFY2(distinct_colours(page, 16) >= 16, qPrintable(tab));
}

void GuiTabsTest::screenshot_of_each_tab_is_not_blank_data() {
  QTest::addColumn<QString>("tab");
  for (const QString& tab : MainWindow::tab_names()) QTest::newRow(qPrintable(tab)) << tab;
}

/// At 1000 x 700 (docs/gui.md's smallest size) no tab makes the window wider or taller: every
/// field, legend and hint fits, so nothing is cut off (the screenshots at that size were looked
/// at); the screenshot is the window's size.
void GuiTabsTest::every_tab_fits_1000_by_700() {
  QFETCH(QString, tab);
  MainWindow w(catalog_);
  QVERIFY(w.open_file(kQuickstart));
  QVERIFY(w.open_sweep(write_sweep_csv()));
  w.claims_view()->open(QStringLiteral(FLOPCAST_SCENARIOS_DIR "/seed-claims/claims.yaml"));
  w.resize(1000, 700);
  const QString path = shot_path(QStringLiteral("gui-%1-1000x700.png").arg(tab));
  QString error;
  QVERIFY2(save_screenshot(w, tab, path, &error), qPrintable(error));
  QString wide;
  for (QWidget* c : w.findChildren<QWidget*>())
    if (c->isVisible() && c->minimumSizeHint().width() > 600)
      wide += QStringLiteral("%1 (%2) ")
                  .arg(QString::fromLatin1(c->metaObject()->className()))
                  .arg(c->minimumSizeHint().width());
  QVERIFY2(w.minimumSizeHint().width() <= 1000, qPrintable(wide));
  QCOMPARE(QImage(path).size(), QSize(1000, 700));
}

void GuiTabsTest::every_tab_fits_1000_by_700_data() {
  QTest::addColumn<QString>("tab");
  for (const QString& t : MainWindow::tab_names()) QTest::newRow(qPrintable(t)) << t;
}

QTEST_MAIN(GuiTabsTest)
#include "test_gui_tabs.moc"
