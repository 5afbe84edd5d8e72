#include "gui_test_support.hpp"

namespace flopcast::gui::test {

std::string read_all(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

bool write_all(const QString& path, const std::string& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

int distinct_colours(const QImage& image, int stop_at) {
  QSet<QRgb> colours;
  const QImage img = image.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < img.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
    for (int x = 0; x < img.width(); ++x) {
      colours.insert(line[x]);
      if (colours.size() >= stop_at) return static_cast<int>(colours.size());
    }
  }
  return static_cast<int>(colours.size());
}

cost::StageTimes stage(double f_ms, double b_ms, double p2p_ms) {
  cost::StageTimes s;
  s.forward = units::Time::from_seconds(f_ms * 1e-3);
  s.backward = units::Time::from_seconds(b_ms * 1e-3);
  s.p2p = units::Time::from_seconds(p2p_ms * 1e-3);
  return s;
}

void GuiTestBase::init_environment() {
  QVERIFY(tmp_.isValid());
  // Recent files and window settings go to a scratch folder, never the user's.
  QCoreApplication::setOrganizationName(QStringLiteral("flopcast-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("flopcast-gui-tests"));
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, tmp_.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, tmp_.path());
  scenario::Diagnostics d;
  auto cat = io::load_catalog("", d);
  QVERIFY2(cat.has_value(), d.str().c_str());
  catalog_ = std::make_shared<const io::Catalog>(std::move(*cat));
}

/// A sweep CSV as `flopcast sweep` writes it: 12 points over GPU type x count.
QString GuiTestBase::write_sweep_csv() const {
  const QString path = tmp_.filePath(QStringLiteral("sweep.csv"));
  std::string text = "# flopcast sweep test-sweep points=12\npoint,gpu,gpus,tp,days,cost_usd\n";
  int point = 0;
  for (const char* gpu : {"H100", "H800"})
    for (int gpus : {8, 16, 24, 32, 48, 64}) {
      const double days = 400.0 / gpus * (gpu[1] == '1' ? 1.0 : 1.1);
      text += std::to_string(point++) + "," + gpu + "," + std::to_string(gpus) + ",2," + std::to_string(days) + "," +
              std::to_string(days * gpus * 24 * 2.5) + "\n";
    }
  write_all(path, text);
  return path;
}

}  // namespace flopcast::gui::test
