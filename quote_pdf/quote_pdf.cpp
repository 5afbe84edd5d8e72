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

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

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

/// The top and bottom of table row `row` of `table` as laid out, in document coordinates: the
/// extent of its cells' blocks.
std::pair<qreal, qreal> row_extent(const QTextDocument& doc, const QTextTable& table, int row) {
  qreal top = -1, bottom = -1;
  for (int col = 0; col < table.columns(); ++col) {
    const QTextTableCell cell = table.cellAt(row, col);
    if (cell.row() != row) continue;  // spanned from a row above
    for (QTextBlock b = doc.findBlock(cell.firstPosition()); b.isValid() && b.position() <= cell.lastPosition();
         b = b.next()) {
      const QRectF r = doc.documentLayout()->blockBoundingRect(b);
      top = top < 0 ? r.top() : std::min(top, r.top());
      bottom = std::max(bottom, r.bottom());
    }
  }
  return {top, bottom};
}

/// A table row the layout splits across two pages: the table's index among the document's
/// tables (-1: none), the row, the table's header rows.
struct SplitRow {
  int table = -1, row = -1, header_rows = 0;
};

/// The first body row (not a header row, not taller than a page) that the layout splits across
/// two pages.
SplitRow first_split_row(const QTextDocument& doc) {
  const qreal page = doc.pageSize().height();
  if (page <= 0) return {};
  int index = -1;
  for (QTextFrame* frame : doc.rootFrame()->childFrames()) {
    auto* table = qobject_cast<QTextTable*>(frame);
    if (table == nullptr) continue;
    ++index;
    const int header = table->format().headerRowCount();
    for (int row = header; row < table->rows(); ++row) {
      const auto [top, bottom] = row_extent(doc, *table, row);
      if (top < 0 || bottom - top >= page) continue;
      if (std::floor(top / page) != std::floor((bottom - 0.5) / page)) return {index, row, header};
    }
  }
  return {};
}

/// `html` with the table of `split` (its index in document order) ended before the split row (its
/// header rows counted) and continued in a new table on the next page: the same opening tag with
/// "page-break-before: always", the same <thead>. When the split row is the table's first body
/// row, the whole table starts the next page instead. "" when the HTML does not have that table
/// and row (tables of the quote's HTML are not nested: core/quote's render_quote_html).
std::string with_table_split(const std::string& html, const SplitRow& split) {
  const int table = split.table, row = split.row;
  constexpr const char* kBreak = " style=\"page-break-before: always\"";
  std::size_t open = std::string::npos;
  for (int t = 0, from = 0; t <= table; ++t) {
    open = html.find("<table", static_cast<std::size_t>(from));
    if (open == std::string::npos) return "";
    from = static_cast<int>(open) + 1;
  }
  const std::size_t tag_end = html.find('>', open), close = html.find("</table>", open);
  if (tag_end == std::string::npos || close == std::string::npos) return "";
  if (row <= split.header_rows) return html.substr(0, tag_end) + kBreak + html.substr(tag_end);
  std::size_t tr = tag_end;
  for (int r = 0; r <= row; ++r) {
    tr = html.find("<tr", tr + 1);
    if (tr == std::string::npos || tr > close) return "";
  }
  std::string head;
  const std::size_t thead = html.find("<thead>", open), thead_end = html.find("</thead>", open);
  if (thead < close && thead_end < close) head = html.substr(thead, thead_end + 8 - thead);
  const std::string tag = html.substr(open, tag_end - open) + kBreak + ">";
  return html.substr(0, tr) + "</tbody></table>\n" + tag + head + "<tbody>\n" + html.substr(tr);
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

/// A QGuiApplication for one scope: QTextDocument needs fonts, which need one. A command-line
/// program has none: one is made for the scope on the offscreen platform (no display needed);
/// its argc/argv must outlive it, so they live here too. ok() is false in a process running a
/// non-GUI QCoreApplication.
class GuiScope {
 public:
  GuiScope() {
    if (QCoreApplication::instance() == nullptr)
      app_ = std::make_unique<QGuiApplication>(argc_, argv_);
    else if (qobject_cast<QGuiApplication*>(QCoreApplication::instance()) == nullptr)
      ok_ = false;
  }
  GuiScope(const GuiScope&) = delete;
  GuiScope& operator=(const GuiScope&) = delete;
  bool ok() const { return ok_; }

 private:
  int argc_ = 3;
  char arg0_[9] = "flopcast";
  char arg1_[10] = "-platform";
  char arg2_[10] = "offscreen";
  char* argv_[4] = {arg0_, arg1_, arg2_, nullptr};
  std::unique_ptr<QGuiApplication> app_;
  bool ok_ = true;
};

constexpr const char* kNotGui = "PDF output needs a QGuiApplication, but this process runs a non-GUI QCoreApplication";

/// `html` laid out in `doc` on A4 pages of `printable` points, as the PDF prints it, on
/// `device` (a paint device of the layout's resolution, which must outlive `doc`'s use).
/// A table row the layout splits across two pages is moved to the next page, whole: Qt moves a
/// row only when none of its cells starts on the page (QTextDocumentLayout's layoutTable,
/// dropRowToNextPage), so a row whose first line fits and whose second does not was split. Its
/// table ends before it and goes on in a new table on the next page, the header repeated; one
/// row at a time, in document order, as each move shifts what follows.
void lay_out(QTextDocument& doc, QImage& device, std::string html, const QRectF& printable) {
  const int dots_per_metre = qRound(kLayoutDpi / kMetresPerInch);
  device.setDotsPerMeterX(dots_per_metre);
  device.setDotsPerMeterY(dots_per_metre);
  doc.documentLayout()->setPaintDevice(&device);
  // The page margins above frame the text; QTextDocument's own 4 px margin would add to them.
  doc.setDocumentMargin(0);
  for (int moved = 0;; ++moved) {
    doc.setHtml(adapt_style_to_qt(QString::fromUtf8(html.data(), static_cast<qsizetype>(html.size()))));
    keep_numbers_whole(doc);
    doc.setPageSize(QSizeF(printable.width(), printable.height()) * (kLayoutDpi / kPointsPerInch));
    const SplitRow split = first_split_row(doc);
    if (split.table < 0 || moved == 100) return;
    std::string moved_html = with_table_split(html, split);
    if (moved_html.empty()) return;
    html = std::move(moved_html);
  }
}

QPageLayout a4_layout() {
  return QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                     QMarginsF(kMarginMm, kMarginMm, kMarginMm, kMarginMm), QPageLayout::Millimeter);
}

}  // namespace

int broken_table_rows(const std::string& html, std::string& error) {
  QString messages;
  MessageCapture capture(messages);
  const GuiScope gui;
  if (!gui.ok()) {
    error = kNotGui;
    return -1;
  }
  QImage device(1, 1, QImage::Format_ARGB32);
  QTextDocument doc;
  lay_out(doc, device, html, a4_layout().paintRect(QPageLayout::Point));
  // Rows split across two pages, and rows (or tables) that leave a page empty before them.
  int broken = 0;
  const qreal page = doc.pageSize().height();
  qreal last_bottom = -1;
  for (QTextFrame* frame : doc.rootFrame()->childFrames()) {
    auto* table = qobject_cast<QTextTable*>(frame);
    if (table == nullptr) continue;
    for (int row = table->format().headerRowCount(); row < table->rows(); ++row) {
      const auto [top, bottom] = row_extent(doc, *table, row);
      if (top < 0) continue;
      if (bottom - top < page && std::floor(top / page) != std::floor((bottom - 0.5) / page)) ++broken;
      if (last_bottom >= 0 && std::floor(top / page) - std::floor((last_bottom - 0.5) / page) > 1) ++broken;
      last_bottom = bottom;
    }
  }
  return broken;
}

bool html_to_pdf(const std::string& html, const std::string& title, std::string& pdf, std::string& error) {
  QString messages;
  MessageCapture capture(messages);
  const GuiScope gui;
  if (!gui.ok()) {
    error = kNotGui;
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
    writer.setPageLayout(a4_layout());
    writer.setResolution(kPdfDpi);
    writer.setTitle(QString::fromStdString(title));
    writer.setCreator(QStringLiteral("flopcast"));

    // Lay the document out on a device of known resolution, one page = the printable area of
    // A4, then paint it page by page at the writer's resolution.
    QImage layout_device(1, 1, QImage::Format_ARGB32);
    QTextDocument doc;
    lay_out(doc, layout_device, html, writer.pageLayout().paintRect(QPageLayout::Point));
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
