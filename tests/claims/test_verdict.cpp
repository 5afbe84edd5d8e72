// Verdict rules (core/claims/verdict.hpp): the 10% band, the direction that is better for the
// buyer, bounds ("< 3 us"), a claimed zero, and the words the report prints.
#include <doctest/doctest.h>

#include "flopcast/claims/verdict.hpp"

using namespace flopcast::claims;

TEST_CASE("claims: compare holds within 10% and says by how much otherwise") {
  // Higher is better: claimed 1,075 against 312 TFLOP/s is 1,075/312 - 1 = 245% optimistic.
  Verdict v = compare(1075, 312, Better::Higher);
  CHECK(v.kind == VerdictKind::Optimistic);
  CHECK(v.percent == doctest::Approx(244.55).epsilon(1e-3));
  CHECK(v.word() == "optimistic by 245%");
  // Lower is better: a claimed 330 W against 700 W: 700/330 - 1 = 112% optimistic.
  v = compare(330, 700, Better::Lower);
  CHECK(v.word() == "optimistic by 112%");
  // Claimed 0.92x against 3.171x: 1 - 0.92/3.171 = 71% pessimistic.
  v = compare(0.92, 3.171, Better::Higher);
  CHECK(v.kind == VerdictKind::Pessimistic);
  CHECK(v.word() == "pessimistic by 71%");
  // 10% either way holds: 80 GB claimed against 85.5 GB, 190 against 192 Gb/s.
  CHECK(compare(80, 85.5, Better::Higher).kind == VerdictKind::Holds);
  CHECK(compare(190, 192, Better::Higher).kind == VerdictKind::Holds);
  CHECK(compare(109, 100, Better::Higher).kind == VerdictKind::Holds);
  CHECK(compare(111, 100, Better::Higher).kind == VerdictKind::Optimistic);
  CHECK(compare(89, 100, Better::Higher).kind == VerdictKind::Pessimistic);
}

TEST_CASE("claims: a bound holds on its side and is optimistic beyond it") {
  // "< 3 us" against 16.6 us: 16.6/3 - 1 = 453% optimistic; against 2 us it holds (never pessimistic).
  CHECK(compare(3e-6, 16.6e-6, Better::Lower, Bound::AtMost).word() == "optimistic by 453%");
  CHECK(compare(3e-6, 2e-6, Better::Lower, Bound::AtMost).kind == VerdictKind::Holds);
  CHECK(compare(3e-6, 0.5e-6, Better::Lower, Bound::Exact).kind == VerdictKind::Pessimistic);
  // "> 50%" against 80%: holds.
  CHECK(compare(0.5, 0.8, Better::Higher, Bound::AtLeast).kind == VerdictKind::Holds);
}

TEST_CASE("claims: a claimed zero of a lower-is-better figure is impossible unless nothing is computed either") {
  CHECK(compare(0, 1082.8, Better::Lower).kind == VerdictKind::Impossible);
  CHECK(compare(0, 0, Better::Lower).kind == VerdictKind::Holds);
}

TEST_CASE("claims: verdict words") {
  Verdict v;
  v.kind = VerdictKind::Contradicts;
  v.others = {"a100-node-month-price", "a100-hourly-price"};
  CHECK(v.word() == "contradicts a100-node-month-price, a100-hourly-price");
  v.kind = VerdictKind::CannotJudge;
  CHECK(v.word() == "cannot be judged");
  v.kind = VerdictKind::Impossible;
  CHECK(v.word() == "impossible");
  v.kind = VerdictKind::Holds;
  CHECK(v.word() == "holds");
}
