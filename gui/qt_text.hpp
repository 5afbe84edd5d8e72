#pragma once
/// Text from core and app (UTF-8 std::string) as Qt strings.
#include <QString>
#include <string>

namespace flopcast::gui {

/// `s`, UTF-8 as every core and app string is, as a QString.
inline QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace flopcast::gui
