#include "quote_pdf.hpp"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QByteArray>
#include <QColor>
#include <QFont>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHashSeed>
#include <QImage>
#include <QMarginsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPalette>
#include <QPdfWriter>
#include <QPointF>
#include <QRectF>
#include <QRegularExpression>
#include <QSizeF>
#include <QString>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QtGlobal>

#include <memory>

namespace flopcast::quote_pdf {
namespace {

/// PDF resolution in dots per inch. Layout is resolution-independent; 300 keeps coordinates
/// small (QPdfWriter's default is 1200).
constexpr int kPdfDpi = 300;

/// Resolution the document is laid out at: CSS's reference pixel (CSS Values and Units Level 3,
/// absolute lengths: 1 in = 96 px = 72 pt), so the HTML's px (borders, cellpadding) and pt mean
/// what they mean in a browser, whatever screen the process has.
constexpr int kLayoutDpi = 96;
constexpr double kPointsPerInch = 72.0;
constexpr double kMetresPerInch = 0.0254;

/// Adapts the <style> block of `html` to QTextDocument's CSS parser (Qt 6.4):
/// - margin and padding lengths are read in px only ("14pt" there reads as 0, which drops the
///   heading spacing and cell padding): the layout runs at kLayoutDpi, so each "<number>pt" is
///   rewritten as the same length in px;
/// - "margin: auto" (a browser centring the page) is read as a fixed margin on every block and
///   narrows the text: the PDF page has its own margins, so the declaration is dropped.
QString adapt_style_to_qt(const QString& html) {
  const qsizetype open = html.indexOf(QStringLiteral("<style"));
  const qsizetype close = open < 0 ? -1 : html.indexOf(QStringLiteral("</style>"), open);
  if (close < 0) return html;
  static const QRegularExpression kPoints(QStringLiteral("(\\d+(?:\\.\\d+)?)pt\\b"));
  static const QRegularExpression kMarginAuto(QStringLiteral("margin\\s*:\\s*auto\\s*;?"));
  QString style = html.mid(open, close - open);
  style.remove(kMarginAuto);
  QString out;
  qsizetype last = 0;
  for (auto it = kPoints.globalMatch(style); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    const double px = m.captured(1).toDouble() * kLayoutDpi / kPointsPerInch;
    out += style.mid(last, m.capturedStart() - last) + QString::number(px, 'g', 6) + QStringLiteral("px");
    last = m.capturedEnd();
  }
  out += style.mid(last);
  return html.left(open) + out + html.mid(close);
}

/// Keeps figures on one line: a right-aligned paragraph of one word in a table cell (an amount
/// in the quote's number columns) gets non-breakable lines, so its column is at least as wide
/// as its longest figure instead of wrapping "(239,526.06)" before the ")". Text with spaces
/// ("85,000.00 CNY / node-month") still wraps.
void keep_numbers_whole(QTextDocument& doc) {
  for (QTextFrame* frame : doc.rootFrame()->childFrames()) {
    auto* table = qobject_cast<QTextTable*>(frame);
    if (table == nullptr) continue;
    for (int row = 0; row < table->rows(); ++row) {
      for (int col = 0; col < table->columns(); ++col) {
        const QTextTableCell cell = table->cellAt(row, col);
        for (QTextBlock b = doc.findBlock(cell.firstPosition()); b.isValid() && b.position() <= cell.lastPosition();
             b = b.next()) {
          QTextBlockFormat f = b.blockFormat();
          if (!(f.alignment() & Qt::AlignRight) || b.text().contains(QLatin1Char(' '))) continue;
          f.setNonBreakableLines(true);
          QTextCursor(b).setBlockFormat(f);
        }
      }
    }
  }
}

/// Footer text size, pt, and its baseline below the printable area, mm (inside the bottom margin).
constexpr double kFooterPt = 7.5;
constexpr double kFooterBelowMm = 9.0;
constexpr double kMmPerInch = 25.4;

/// The CJK font families a Chinese quote's HTML names, in its order of preference
/// (core/quote's render_quote_html), with the Debian packages that install them.
constexpr const char* kCjkFamilies[] = {"WenQuanYi Micro Hei", "Noto Sans CJK SC"};
constexpr const char* kCjkPackages = "fonts-wqy-microhei (or fonts-noto-cjk)";

/// Whether the HTML is a Chinese quote: `<html lang="zh-CN">`.
bool is_chinese(const std::string& html) { return html.find("<html lang=\"zh-CN\">") != std::string::npos; }

/// The first CJK family installed, or an empty string.
QString installed_cjk_family() {
  for (const char* family : kCjkFamilies)
    if (QFontDatabase::hasFamily(QString::fromLatin1(family))) return QString::fromLatin1(family);
  return {};
}

/// Paints the laid-out pages of `doc` onto `writer`, each with a footer "<title>" on the left
/// and "page i of n" ("第 i 页，共 n 页" in Chinese) on the right, in `footer_family`.
/// (QTextDocument::print() would print a paginated document without any footer.)
void paint_pages(const QTextDocument& doc, QPdfWriter& writer, const QString& title, const QString& footer_family,
                 bool chinese) {
  QPainter painter(&writer);
  const double to_device = static_cast<double>(kPdfDpi) / kLayoutDpi;
  const QSizeF page = doc.pageSize();
  const int pages = doc.pageCount();
  const QRectF printable(QPointF(0, 0), page * to_device);
  QFont footer_font(footer_family);
  footer_font.setPointSizeF(kFooterPt);
  const double footer_y = printable.bottom() + kFooterBelowMm / kMmPerInch * kPdfDpi;
  for (int i = 0; i < pages; ++i) {
    if (i > 0) writer.newPage();
    painter.save();
    painter.scale(to_device, to_device);
    const QRectF slice(0, i * page.height(), page.width(), page.height());
    painter.translate(0, -slice.top());
    painter.setClipRect(slice);
    QAbstractTextDocumentLayout::PaintContext ctx;
    ctx.clip = slice;
    ctx.palette.setColor(QPalette::Text, Qt::black);
    doc.documentLayout()->draw(&painter, ctx);
    painter.restore();
    painter.setFont(footer_font);
    painter.setPen(QColor(0x55, 0x55, 0x55));
    const QRectF line(0, footer_y - painter.fontMetrics().ascent(), printable.width(), painter.fontMetrics().height());
    painter.drawText(line, Qt::AlignLeft | Qt::AlignTop, title);
    const QString page_of = chinese ? QString::fromUtf8("第 %1 页，共 %2 页") : QStringLiteral("page %1 of %2");
    painter.drawText(line, Qt::AlignRight | Qt::AlignTop, page_of.arg(i + 1).arg(pages));
  }
}

/// Qt's messages during the call ("XDG_RUNTIME_DIR not set" from the offscreen platform) are
/// kept here instead of going to stderr: libraries do not print (STYLE.md).
QString* g_messages = nullptr;

void collect_message(QtMsgType, const QMessageLogContext&, const QString& msg) {
  if (g_messages != nullptr) g_messages->append(msg).append(QLatin1Char('\n'));
}

/// Installs collect_message for one scope and puts the previous handler back.
class MessageCapture {
 public:
  explicit MessageCapture(QString& sink) : previous_sink_(g_messages) {
    g_messages = &sink;
    previous_ = qInstallMessageHandler(collect_message);
  }
  ~MessageCapture() {
    qInstallMessageHandler(previous_);
    g_messages = previous_sink_;
  }
  MessageCapture(const MessageCapture&) = delete;
  MessageCapture& operator=(const MessageCapture&) = delete;

 private:
  QString* previous_sink_;
  QtMessageHandler previous_ = nullptr;
};

/// A fixed QHash seed for one scope, the random one back after it: fonts and glyph tables are
/// hashed while the PDF is written, and a fixed seed writes them in the same order on every
/// run; a GUI process that prints a quote keeps its random seed for everything else.
class DeterministicHashSeed {
 public:
  DeterministicHashSeed() { QHashSeed::setDeterministicGlobalSeed(); }
  ~DeterministicHashSeed() { QHashSeed::resetRandomGlobalSeed(); }
  DeterministicHashSeed(const DeterministicHashSeed&) = delete;
  DeterministicHashSeed& operator=(const DeterministicHashSeed&) = delete;
};

}  // namespace

bool html_to_pdf(const std::string& html, const std::string& title, std::string& pdf, std::string& error) {
  QString messages;
  MessageCapture capture(messages);
  // QTextDocument needs fonts, which need a QGuiApplication. A command-line program has none:
  // make one for this call on the offscreen platform (no display needed). Its argc/argv must
  // outlive it, so they live here too.
  int argc = 3;
  char arg0[] = "flopcast";
  char arg1[] = "-platform";
  char arg2[] = "offscreen";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  std::unique_ptr<QGuiApplication> own_app;
  if (QCoreApplication::instance() == nullptr) {
    own_app = std::make_unique<QGuiApplication>(argc, argv);
  } else if (qobject_cast<QGuiApplication*>(QCoreApplication::instance()) == nullptr) {
    error = "PDF output needs a QGuiApplication, but this process runs a non-GUI QCoreApplication";
    return false;
  }

  const DeterministicHashSeed same_order;  // the same HTML gives the same PDF bytes
  const bool chinese = is_chinese(html);
  const QString cjk = chinese ? installed_cjk_family() : QString();
  if (chinese && cjk.isEmpty()) {
    error = std::string("a Chinese quote needs a CJK font (") + kCjkFamilies[0] + " or " + kCjkFamilies[1] +
            ") and none is installed: install the Debian package " + kCjkPackages +
            ", e.g. apt-get install fonts-wqy-microhei";
    return false;
  }

  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                     QMarginsF(kMarginMm, kMarginMm, kMarginMm, kMarginMm), QPageLayout::Millimeter));
    writer.setResolution(kPdfDpi);
    writer.setTitle(QString::fromStdString(title));
    writer.setCreator(QStringLiteral("flopcast"));

    // Lay the document out on a device of known resolution, one page = the printable area of
    // A4, then paint it page by page at the writer's resolution.
    QImage layout_device(1, 1, QImage::Format_ARGB32);
    const int dots_per_metre = qRound(kLayoutDpi / kMetresPerInch);
    layout_device.setDotsPerMeterX(dots_per_metre);
    layout_device.setDotsPerMeterY(dots_per_metre);
    QTextDocument doc;
    doc.documentLayout()->setPaintDevice(&layout_device);
    // The page margins above frame the text; QTextDocument's own 4 px margin would add to them.
    doc.setDocumentMargin(0);
    doc.setHtml(adapt_style_to_qt(QString::fromUtf8(html.data(), static_cast<qsizetype>(html.size()))));
    keep_numbers_whole(doc);
    const QRectF printable = writer.pageLayout().paintRect(QPageLayout::Point);
    doc.setPageSize(QSizeF(printable.width(), printable.height()) * (kLayoutDpi / kPointsPerInch));
    paint_pages(doc, writer, QString::fromStdString(title), chinese ? cjk : QStringLiteral("DejaVu Sans"), chinese);
  }
  if (bytes.isEmpty()) {
    error = "Qt produced an empty PDF";
    if (!messages.isEmpty()) error += ": " + messages.trimmed().toStdString();
    return false;
  }
  pdf.assign(bytes.constData(), static_cast<std::size_t>(bytes.size()));
  return true;
}

}  // namespace flopcast::quote_pdf
