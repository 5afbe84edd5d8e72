#pragma once
/// Edits of YAML text in place: one value changed, added or removed at a key path, every
/// other byte of the text kept (comments, key order, quoting, blank lines, alignment before
/// trailing comments). The GUI saves an edited scenario through patch_scenario_text(), so a
/// file keeps its comments and layout across a round trip through the editor.
///
/// The texts handled are block mappings (`key: value` lines, nested by indentation), as
/// scenario files are written. A path through a flow collection (`{tp: 2}`) or a sequence is
/// not patched in place: the nearest block key above it gets its whole new value instead.
#include <optional>
#include <string>
#include <vector>

#include "flopcast/io/catalog.hpp"
#include "flopcast/io/scenario_form.hpp"

namespace flopcast::io {

/// A key path into nested block mappings, outermost first: {"parallel", "tp"}.
using YamlPath = std::vector<std::string>;

/// Sets the value of `path` in `text` to `value`: YAML text of one node, a scalar on one line
/// ("4", "\"a b\"") or a block collection on several ("tp: 2\npp: 1"), indented by the
/// caller at 0. An existing key keeps its line, indentation and trailing comment; a missing
/// one (and any missing parent) is added after the last line of its parent mapping at that
/// mapping's indentation. Returns false, leaving `text` unchanged and saying why in `why`,
/// when the path runs through a flow collection, a sequence or a scalar.
bool yaml_set(std::string& text, const YamlPath& path, const std::string& value, std::string& why);

/// Removes `path` (its key line and its nested lines) from `text`; a missing key is no
/// change. Returns false as yaml_set() does.
bool yaml_remove(std::string& text, const YamlPath& path, std::string& why);

/// The text of scenario file `base` with the edits that turn form `from` into form `to`:
/// the values where compose_scenario_yaml(base, from) and compose_scenario_yaml(base, to)
/// differ, patched into `base` itself (comments, order and layout kept). nullopt, with the
/// reason in `why`, when a patch could not be placed (the caller then writes the composed
/// text).
std::optional<std::string> patch_scenario_text(const std::string& base, const ScenarioForm& from,
                                               const ScenarioForm& to, const Catalog& catalog, std::string& why);

}  // namespace flopcast::io
