#pragma once
/// Export of a chart (any widget: a Qt Charts view, the timeline) as a PNG or SVG picture,
/// and the "Export as PNG... / SVG..." context menu every chart of the window gets.
/// Pictures are rendered from the widget as shown (its current zoom and size) and written
/// atomically (io::write_file_atomically).
#include <QByteArray>
#include <QString>

class QWidget;

namespace flopcast::gui {

enum class PictureFormat { Png, Svg };

/// The format a file name asks for by its suffix (".png", ".svg", any case), or nullopt-like
/// false when it is neither.
bool picture_format_of(const QString& path, PictureFormat* format);

/// Renders `widget` to PNG bytes (twice its size in pixels, for sharp text) or SVG text (its
/// size in px, `title` as the SVG title). Empty on failure.
QByteArray render_picture(QWidget* widget, PictureFormat format, const QString& title);

/// Renders `widget` in the format `path`'s suffix names and writes it atomically, replacing
/// an existing file (the save dialog asked). False with a message in `error` otherwise.
bool export_picture(QWidget* widget, const QString& path, const QString& title, QString* error);

/// Gives `widget` a context menu "Export as PNG...", "Export as SVG..." (file dialog, then
/// export_picture). `name` is the default file name without suffix ("flopcast-breakdown").
void add_export_menu(QWidget* widget, const QString& name, const QString& title);

/// The export dialog as the menu runs it: asks for a file (the dialog confirms overwriting)
/// and reports failures in a message box.
void export_interactively(QWidget* widget, PictureFormat format, const QString& name, const QString& title);

}  // namespace flopcast::gui
