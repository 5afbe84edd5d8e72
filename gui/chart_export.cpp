#include "chart_export.hpp"

#include <QAbstractScrollArea>
#include <QAction>
#include <QBuffer>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QSvgGenerator>
#include <QWidget>

#include "flopcast/io/atomic_file.hpp"

namespace flopcast::gui {
namespace {

constexpr qreal kPngScale = 2.0;
const QString kExportDirKey = QStringLiteral("exportDirectory");

}  // namespace

bool picture_format_of(const QString& path, PictureFormat* format) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png"))
    *format = PictureFormat::Png;
  else if (suffix == QLatin1String("svg"))
    *format = PictureFormat::Svg;
  else
    return false;
  return true;
}

QByteArray render_picture(QWidget* widget, PictureFormat format, const QString& title) {
  QByteArray bytes;
  if (!widget || widget->size().isEmpty()) return bytes;
  // A widget never shown has no layout yet: give it its size before painting.
  widget->ensurePolished();
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (format == PictureFormat::Png) {
    QImage image(widget->size() * kPngScale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kPngScale);
    image.fill(Qt::white);
    {
      QPainter painter(&image);
      widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    }
    if (!image.save(&buffer, "PNG")) bytes.clear();
    return bytes;
  }
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(widget->size());
  svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
  svg.setResolution(widget->logicalDpiX());  // text keeps the size it has on screen
  svg.setTitle(title);
  svg.setDescription(QStringLiteral("flopcast-gui"));
  {
    QPainter painter(&svg);
    painter.fillRect(QRect(QPoint(0, 0), widget->size()), Qt::white);
    widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  }
  return bytes;
}

bool export_picture(QWidget* widget, const QString& path, const QString& title, QString* error) {
  PictureFormat format{};
  if (!picture_format_of(path, &format)) {
    if (error) *error = QObject::tr("%1: the file name must end in .png or .svg").arg(path);
    return false;
  }
  const QByteArray bytes = render_picture(widget, format, title);
  if (bytes.isEmpty()) {
    if (error) *error = QObject::tr("the chart could not be rendered (is it empty or hidden?)");
    return false;
  }
  std::string why;
  if (!io::write_file_atomically(path.toStdString(), bytes.toStdString(), true, why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  return true;
}

void export_interactively(QWidget* widget, PictureFormat format, const QString& name, const QString& title) {
  QSettings settings;
  const bool png = format == PictureFormat::Png;
  const QString suffix = png ? QStringLiteral(".png") : QStringLiteral(".svg");
  const QString dir = settings.value(kExportDirKey, QDir::homePath()).toString();
  QString path = QFileDialog::getSaveFileName(
      widget->window(), QObject::tr("Export %1").arg(title), QDir(dir).filePath(name + suffix),
      png ? QObject::tr("PNG pictures (*.png)") : QObject::tr("SVG drawings (*.svg)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(suffix, Qt::CaseInsensitive)) path += suffix;
  QString error;
  if (!export_picture(widget, path, title, &error)) {
    QMessageBox::critical(widget->window(), QObject::tr("Cannot export"), error);
    return;
  }
  settings.setValue(kExportDirKey, QFileInfo(path).absolutePath());
}

void add_export_menu(QWidget* widget, const QString& name, const QString& title) {
  auto* png = new QAction(QObject::tr("Export as PNG..."), widget);
  auto* svg = new QAction(QObject::tr("Export as SVG..."), widget);
  QObject::connect(png, &QAction::triggered, widget,
                   [widget, name, title] { export_interactively(widget, PictureFormat::Png, name, title); });
  QObject::connect(svg, &QAction::triggered, widget,
                   [widget, name, title] { export_interactively(widget, PictureFormat::Svg, name, title); });
  // A scroll area receives context menus on its viewport.
  QWidget* target = widget;
  if (auto* area = qobject_cast<QAbstractScrollArea*>(widget)) target = area->viewport();
  target->addAction(png);
  target->addAction(svg);
  target->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace flopcast::gui
