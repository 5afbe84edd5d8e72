#include "flopcast/parallel/parallel_plan.hpp"

namespace flopcast {

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "?";
}

const char* to_string(Schedule s) {
  switch (s) {
    case Schedule::GPipe:
      return "gpipe";
    case Schedule::OneFOneB:
      return "1f1b";
    case Schedule::Interleaved:
      return "interleaved";
    case Schedule::ZeroBubble:
      return "zero-bubble";
  }
  return "?";
}

std::optional<Recompute> parse_recompute(std::string_view s) {
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
    if (s == to_string(r)) return r;
  return std::nullopt;
}

std::optional<Schedule> parse_schedule(std::string_view s) {
  for (Schedule x : {Schedule::GPipe, Schedule::OneFOneB, Schedule::Interleaved, Schedule::ZeroBubble})
    if (s == to_string(x)) return x;
  return std::nullopt;
}

}  // namespace flopcast
