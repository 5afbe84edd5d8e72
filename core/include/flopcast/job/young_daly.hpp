#pragma once
/// Closed forms for checkpoint/restart under exponential (Poisson) failures: the Young/Daly
/// optimal interval, the first-order waste, and the exact expected time of a run with
/// synchronous checkpoints. The Monte Carlo in job_simulation.hpp is tested against them.
#include <cstdint>

#include "flopcast/units/units.hpp"

namespace flopcast::job {

/// Young (1974): T = sqrt(2 C M); C = checkpoint cost, M = job MTBF in seconds
/// (YD). Zero when C or M is not positive.
units::Time young_interval(units::Time checkpoint_cost, double mtbf_s);

/// Daly (2006), FGCS 22(3): T = sqrt(2CM) [1 + 1/3 sqrt(C/2M) + 1/9 (C/2M)] - C for C < 2M,
/// else T = M (YD). Zero when C or M is not positive.
units::Time daly_interval(units::Time checkpoint_cost, double mtbf_s);

/// First-order expected waste fraction of wall time: C/T + (T/2 + W + R)/M, where W is the
/// window after a checkpoint starts during which it does not yet protect work (the async
/// write time; 0 for sync) and R the restart time (YD, derived). 0 for T <= 0 or no failures.
double waste_fraction(units::Time interval, units::Time checkpoint_cost, units::Time unprotected_window,
                      units::Time restart, double mtbf_s);

/// Expected time to finish a segment of length L that must run without failure, when failures
/// arrive at `rate_per_s` and each costs a restart of length R that failures can also
/// interrupt: E = e^{lambda R} (e^{lambda L} - 1) / lambda (renewal argument; the same result
/// as Daly 2006 eq. 5 with zero failure-free downtime). L for lambda = 0.
double expected_segment_seconds(double length_s, double restart_s, double rate_per_s);

/// Expected GPU span of `steps` steps of `step_time`, with a synchronous checkpoint of cost
/// `checkpoint_cost` after every `steps_per_checkpoint` steps except the last segment,
/// restarts of `restart`, and failures at `rate_per_s`: the sum of expected_segment_seconds
/// over the segments. The simulator's model exactly, for sync checkpoints.
units::Time expected_gpu_span_sync(units::Time step_time, std::int64_t steps, std::int64_t steps_per_checkpoint,
                                   units::Time checkpoint_cost, units::Time restart, double rate_per_s);

}  // namespace flopcast::job
