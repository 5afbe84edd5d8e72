#pragma once
/// A simulated step's timeline as Chrome trace-event JSON (the "JSON Object Format" of the
/// Trace Event Format, Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
/// opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
///
/// One process (pid) per pipeline stage and one thread (tid) per stream, named by "M"
/// metadata events (process_name, thread_name, and sort indices so stages stay in order);
/// one "X" (complete) event per slice with ts and dur in microseconds.
#include <string>

#include "flopcast/step/step_result.hpp"

namespace flopcast::io {

/// The trace as one JSON document. `title` names the trace in its metadata.
std::string chrome_trace_json(const step::StepResult& r, const std::string& title);

}  // namespace flopcast::io
