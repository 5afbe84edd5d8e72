#pragma once
/// The flopcast-gui program: command line, catalogs, window, and the headless screenshot
/// mode used for the README images and the tests.
///
///   flopcast-gui [SCENARIO] [--sweep FILE.csv] [--screenshot FILE.png] [--tab NAME] [--size WxH]
///                [--data-dir DIR]
///
/// Exit codes follow the CLI's: 0 ok, 2 bad arguments, 3 bad input (the scenario or the
/// catalogs have errors, printed to stderr), 4 the screenshot could not be written.
#include <QSize>
#include <QString>

namespace flopcast::gui {

class MainWindow;

/// Window size of screenshots (fits a README column at half scale).
inline constexpr int kScreenshotWidth = 1400;
inline constexpr int kScreenshotHeight = 900;

/// Runs the program; returns its exit code.
int run_gui(int argc, char** argv);

/// Processes events until the window shows the result of its current form (or `timeout_ms`
/// passes). True when it does.
bool wait_for_results(MainWindow& window, int timeout_ms);

/// Shows tab `tab` (empty = current), waits for the results, lets the charts lay out, and
/// writes the window as a PNG. The Planner tab first runs a search with its settings when it
/// shows none (the scenario's GPU type, up to its GPU count). False with `error` set on failure.
bool save_screenshot(MainWindow& window, const QString& tab, const QString& path, QString* error);

}  // namespace flopcast::gui
