#include <doctest/doctest.h>

#include <cmath>

#include "flopcast/job/rng.hpp"
#include "flopcast/job/young_daly.hpp"

using namespace flopcast;

TEST_CASE("job: Young/Daly interval on a worked example (M = 3.1 h, C = 60 s)") {
  // M = 3.1 h = 11,160 s, C = 60 s.
  const double m = 11160.0;
  const units::Time c = units::Time::from_seconds(60);
  // Young: sqrt(2 x 60 x 11,160) = sqrt(1,339,200) = 1,157.24 s ("T_opt ~ 1,157 s").
  CHECK(job::young_interval(c, m).seconds() == doctest::Approx(1157.238).epsilon(1e-6));
  // Daly: x = C/2M = 0.0026882; 1157.238 x (1 + sqrt(x)/3 + x/9) - 60
  //     = 1157.238 x 1.0175816 - 60 = 1117.58 s.
  CHECK(job::daly_interval(c, m).seconds() == doctest::Approx(1117.58).epsilon(1e-5));
  // Waste at T = 1,157 s with R = 10 min: 60/1157 + (578.5 + 600)/11,160 = 0.0519 + 0.1056
  // = 0.1575 ("total ~ 16 %").
  CHECK(job::waste_fraction(units::Time::from_seconds(1157), c, units::Time{0}, units::Time::from_seconds(600), m) ==
        doctest::Approx(0.15746).epsilon(1e-4));
  // C >= 2M: Daly falls back to T = M.
  CHECK(job::daly_interval(units::Time::from_seconds(30000), m).seconds() == doctest::Approx(m));
  // No failures or free checkpoints: no interval.
  CHECK(job::young_interval(c, 0.0).ns == 0);
  CHECK(job::daly_interval(units::Time{0}, m).ns == 0);
}

TEST_CASE("job: Llama 3 failure rate gives a 3.1 h job MTBF on 16,384 GPUs") {
  // L3 Table 5: 419 / (16,384 x 1,296 h) = 1.97e-5 per GPU-hour; MTBF(16,384) = 1/(1.97e-5 x 16,384)
  // = 3.098 h.
  CHECK(1.0 / (1.97e-5 * 16384.0) == doctest::Approx(3.098).epsilon(1e-3));
}

TEST_CASE("job: closed-form segment expectation") {
  // lambda = 1/3600 s^-1, R = 600 s, L = 1,860 s:
  // e^{600/3600} (e^{1860/3600} - 1) x 3600 = 1.1813604 x 0.6764330 x 3600 = 2,876.79 s.
  CHECK(job::expected_segment_seconds(1860, 600, 1.0 / 3600) == doctest::Approx(2876.79).epsilon(1e-5));
  // No failures: the segment itself.
  CHECK(job::expected_segment_seconds(1860, 600, 0.0) == doctest::Approx(1860.0));
  // Small lambda L: ~ L (1 + lambda L / 2) + lambda L R: 100 s, R 10 s, lambda 1e-6:
  // 100 + 0.005 + 0.001 = 100.006 s.
  CHECK(job::expected_segment_seconds(100, 10, 1e-6) == doctest::Approx(100.006).epsilon(1e-7));
  // A run of 1,000 steps of 36 s, a 60 s sync checkpoint every 50 steps, R = 600 s,
  // lambda = 1/h: 19 full segments of 1,860 s (2,876.79 s each, above) and a last one of
  // 1,800 s without checkpoint: e^{1/6} (e^{0.5} - 1) 3600 = 1.1813604 x 0.6487213 x 3600
  // = 2,758.95 s. Total 19 x 2,876.79 + 2,758.95 = 57,417.9 s.
  const units::Time e =
      job::expected_gpu_span_sync(units::Time::from_seconds(36), 1000, 50, units::Time::from_seconds(60),
                                  units::Time::from_seconds(600), 1.0 / 3600);
  CHECK(e.seconds() == doctest::Approx(57417.9).epsilon(1e-5));
}

TEST_CASE("job: RNG is the standard mt19937_64 with portable distributions") {
  // The standard fixes the 10,000th output of a default-seeded (5489) mt19937_64:
  // 9981545732273789042 ([rand.predef]). Rng wraps that engine.
  std::mt19937_64 engine(5489u);
  engine.discard(9999);
  CHECK(engine() == 9981545732273789042ULL);

  job::Rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) CHECK(a.uniform() == b.uniform());
  job::Rng u(7);
  for (int i = 0; i < 10000; ++i) {
    const double x = u.uniform();
    REQUIRE(x >= 0.0);
    REQUIRE(x < 1.0);
  }
  // Mean of 200,000 exponential draws at rate 1/100 s: 100 s within 1 % (standard error
  // 100 / sqrt(200,000) = 0.22 s, so 1 s is 4.5 sigma).
  job::Rng e(11);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) sum += e.exponential(0.01).seconds();
  CHECK(sum / n == doctest::Approx(100.0).epsilon(0.01));
  // Streams of mix_seed differ and are reproducible.
  CHECK(job::mix_seed(1, 0) == job::mix_seed(1, 0));
  CHECK(job::mix_seed(1, 0) != job::mix_seed(1, 1));
  CHECK(job::mix_seed(1, 0) != job::mix_seed(2, 0));
}
