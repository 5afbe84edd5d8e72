#include "flopcast/io/chrome_trace.hpp"

#include <nlohmann/json.hpp>

namespace flopcast::io {

std::string chrome_trace_json(const step::StepResult& r, const std::string& title) {
  using J = nlohmann::ordered_json;
  J events = J::array();
  // Stages are processes, streams threads: pid = stage + 1 (some viewers treat pid 0 as idle).
  std::vector<bool> named_stage;
  for (const auto& t : r.tracks) {
    const int pid = t.stage + 1;
    const int tid = static_cast<int>(t.stream) + 1;
    if (named_stage.size() <= static_cast<std::size_t>(t.stage))
      named_stage.resize(static_cast<std::size_t>(t.stage) + 1, false);
    if (!named_stage[static_cast<std::size_t>(t.stage)]) {
      named_stage[static_cast<std::size_t>(t.stage)] = true;
      events.push_back({{"name", "process_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", 0},
                        {"args", {{"name", "stage " + std::to_string(t.stage)}}}});
      events.push_back(
          {{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
    }
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", to_string(t.stream)}}}});
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
  }
  for (const auto& s : r.timeline) {
    const auto& t = r.tracks[static_cast<std::size_t>(s.track)];
    J args = {{"category", to_string(s.category)}};
    if (s.microbatch >= 0) args["microbatch"] = s.microbatch;
    if (s.chunk > 0) args["chunk"] = s.chunk;
    events.push_back({{"name", s.name},
                      {"cat", to_string(s.category)},
                      {"ph", "X"},
                      {"ts", s.start.us()},
                      {"dur", (s.end - s.start).us()},
                      {"pid", t.stage + 1},
                      {"tid", static_cast<int>(t.stream) + 1},
                      {"args", args}});
  }
  J doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = {{"title", title},
                      {"step_time_s", r.step.seconds()},
                      {"critical_stage", r.critical_stage},
                      {"simulator", "flopcast discrete-event step simulation"}};
  return doc.dump(1) + "\n";
}

}  // namespace flopcast::io
