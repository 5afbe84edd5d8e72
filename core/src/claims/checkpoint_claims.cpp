// Checkpoint claims with core/job's checkpoint model: size = parameters x 14 B of restartable
// state, write = size / storage bandwidth, async stall = each GPU's share over its host link,
// a restart reloads the checkpoint and redoes the work since the last durable one.
#include <fmt/format.h>

#include "claim_checks.hpp"
#include "claim_format.hpp"
#include "flopcast/job/job_simulation.hpp"

namespace flopcast::claims::detail {

Verdict judge_checkpoint(const Claim& c, const CheckpointNeeds& n) {
  job::JobInput in;
  in.params = n.params;
  in.gpus = n.gpus;
  in.reliability.storage_write = n.storage_write;
  in.reliability.async_checkpoint = n.async;
  const units::Bytes size = job::checkpoint_size(in);
  const units::Time write = job::checkpoint_write_time(in);
  const units::Time stall = job::checkpoint_stall_time(in);
  const std::string ckpt =
      fmt::format("the {} checkpoint of {} ({:.3g}B parameters x {:g} B)", fmt::format("{:.1f} GB", size.gb()), n.model,
                  n.params / 1e9, in.reliability.checkpoint_bytes_per_param);
  const std::string write_how =
      fmt::format("{} at {:.2f} GB/s = {}", ckpt, n.storage_write.gbytes_per_s(), duration(write));
  const ComputedFigure write_fig{true, write.seconds(), "s", duration(write) + " per checkpoint"};
  const std::string& f = n.figure;
  if (f == "storage_bandwidth") {
    Verdict v = cannot_judge("flopcast takes storage bandwidth as an input and has no model of disks to check it with");
    v.figure = write_fig;
    v.how = "what the stated bandwidth means for a write: " + write_how;
    return v;
  }
  if (f == "write_time") {
    Verdict v = compare(c.claimed->value, write.seconds(), Better::Lower, c.claimed->bound);
    v.figure = write_fig;
    v.how = write_how;
    settle(v, c, "the write takes " + duration(write) + ", not " + c.claimed->text);
    return v;
  }
  if (f == "save_speedup") {
    if (!n.baseline_write) {
      Verdict v = cannot_judge("the claim does not say what the save is faster than (no baseline storage)");
      v.figure = write_fig;
      v.how = write_how;
      return v;
    }
    job::JobInput base = in;
    base.reliability.storage_write = *n.baseline_write;
    const units::Time base_write = job::checkpoint_write_time(base);
    const double speedup = base_write.seconds() / write.seconds();
    Verdict v = compare(1.0 + c.claimed->value, speedup, Better::Higher, c.claimed->bound);
    v.figure = {true, (speedup - 1) * 100, "%",
                speedup >= 1 ? fmt::format("{} faster ({:.2f}x)", percent(speedup - 1), speedup)
                             : fmt::format("{} slower ({:.2f}x the time)", percent(1 / speedup - 1), 1 / speedup)};
    v.how = fmt::format("{}; the baseline at {:.2f} GB/s takes {}: speed-up {} / {} = {:.2f}x", write_how,
                        n.baseline_write->gbytes_per_s(), duration(base_write), duration(base_write), duration(write),
                        speedup);
    settle(v, c, "the save is " + v.figure.text + " against the baseline, not " + c.claimed->text + " faster");
    return v;
  }
  if (f == "interval") {
    Verdict v;
    const units::Time interval = units::Time::from_seconds(c.claimed->value);
    v.figure = write_fig;
    v.how = fmt::format(
        "{}; one every {} stalls training {} each ({} of the interval, {})", write_how, duration(interval),
        duration(stall), percent(stall.seconds() / std::max(1e-9, interval.seconds()), 2),
        n.async ? "async: the snapshot to host memory, each GPU's share over its host link" : "sync: the whole write");
    if (write > interval) {
      v.kind = n.async ? VerdictKind::Impossible : VerdictKind::Optimistic;
      if (n.async)
        v.reason = fmt::format(
            "each asynchronous write takes {}, longer than the {} interval: every other "
            "checkpoint would be skipped",
            duration(write), duration(interval));
      else
        v.percent = (write.seconds() / interval.seconds() - 1) * 100;
    } else {
      v.kind = VerdictKind::Holds;
    }
    return v;
  }
  if (f == "restart_time") {
    const units::Bandwidth read = n.storage_read.value_or(n.storage_write);
    const units::Time load = units::transfer_time(size, read);
    Verdict v = compare(c.claimed->value, load.seconds(), Better::Lower, c.claimed->bound);
    v.figure = {true, load.seconds(), "s", duration(load) + " to reload the checkpoint alone"};
    v.how = fmt::format(
        "a restart reloads {} at {:.2f} GB/s{} = {}, before detecting the failure and starting the "
        "processes",
        ckpt, read.gbytes_per_s(), n.storage_read ? "" : " (read taken as fast as the stated write)", duration(load));
    settle(v, c, "reloading the checkpoint alone takes " + duration(load) + ", not " + c.claimed->text);
    return v;
  }
  // lost_work: training redone after a failure, on average.
  const units::Time window = n.async ? write : units::Time{0};
  const units::Time lost = units::Time::from_seconds(n.interval.seconds() / 2) + window;
  Verdict v = compare(c.claimed->value, lost.seconds(), Better::Lower, c.claimed->bound);
  v.figure = {true, lost.seconds(), "s", duration(lost) + " of training redone per failure (mean)"};
  v.how = fmt::format("a restart resumes from the last durable checkpoint: half the {} interval{} = {}",
                      duration(n.interval),
                      n.async ? " plus the " + duration(write) +
                                    " write window (an async checkpoint protects work "
                                    "only once written)"
                              : std::string(),
                      duration(lost));
  settle(v, c,
         fmt::format("with a checkpoint every {}, a failure loses {} of training on average, not {}",
                     duration(n.interval), duration(lost), c.claimed->text));
  if (v.kind == VerdictKind::Impossible && v.reason.empty())
    v.reason = "resuming from the last step needs a checkpoint every step; " + v.how;
  return v;
}

}  // namespace flopcast::claims::detail
