// The plan search's lists: the streaming top-K, the Pareto front of time and cost, and the ranked
// candidates kept for the re-simulation of each GPU type (exact and independent of the order
// plans are offered in).
#include <algorithm>
#include <limits>

#include "flopcast/search/planner.hpp"
#include "search_detail.hpp"

namespace flopcast::search {

using namespace detail;

void TopK::offer(const PlanCandidate& c, double key) {
  auto less = [](const std::pair<double, PlanCandidate>& a, const std::pair<double, PlanCandidate>& b) {
    return key_less(a.first, a.second.index, b.first, b.second.index);
  };
  if (k_ == 0) return;
  if (heap_.size() < k_) {
    heap_.emplace_back(key, c);
    std::push_heap(heap_.begin(), heap_.end(), less);
    return;
  }
  const auto& worst = heap_.front();
  if (!key_less(key, c.index, worst.first, worst.second.index)) return;
  std::pop_heap(heap_.begin(), heap_.end(), less);
  heap_.back() = {key, c};
  std::push_heap(heap_.begin(), heap_.end(), less);
}

void TopK::merge(const TopK& other) {
  for (const auto& [key, c] : other.heap_) offer(c, key);
}

std::vector<PlanCandidate> TopK::sorted() const {
  auto v = heap_;
  std::sort(v.begin(), v.end(),
            [](const auto& a, const auto& b) { return key_less(a.first, a.second.index, b.first, b.second.index); });
  std::vector<PlanCandidate> out;
  out.reserve(v.size());
  for (auto& [k, c] : v) out.push_back(std::move(c));
  return out;
}

std::vector<PricedPlan> pareto_front(std::vector<PricedPlan> points) {
  // Sort by wall, then cost, then enumeration order; sweep keeping strictly falling cost.
  std::stable_sort(points.begin(), points.end(), [](const PricedPlan& a, const PricedPlan& b) {
    if (a.candidate.wall != b.candidate.wall) return a.candidate.wall < b.candidate.wall;
    if (a.cost.minor != b.cost.minor) return a.cost.minor < b.cost.minor;
    return a.candidate.index < b.candidate.index;
  });
  std::vector<PricedPlan> front;
  for (auto& p : points) {
    if (front.empty() || p.cost.minor < front.back().cost.minor) front.push_back(std::move(p));
  }
  return front;
}

double TopK::threshold() const {
  if (k_ == 0) return -std::numeric_limits<double>::infinity();
  return heap_.size() < k_ ? std::numeric_limits<double>::infinity() : heap_.front().first;
}

namespace detail {

namespace {
bool same_bucket(const PlanCandidate& a, const PlanCandidate& b) {
  return a.gpus == b.gpus && a.precision == b.precision && a.cluster == b.cluster;
}
}  // namespace

void RankedList::offer(const PlanCandidate& c, double key) {
  if (capacity_ == 0 || per_count_ == 0) return;
  auto less = [](const std::pair<double, PlanCandidate>& a, double k, std::int64_t i) {
    return key_less(a.first, a.second.index, k, i);
  };
  // The bucket's members, worst last (kept_ is sorted).
  std::size_t in_bucket = 0, worst = kept_.size();
  for (std::size_t i = 0; i < kept_.size(); ++i)
    if (same_bucket(kept_[i].second, c)) {
      ++in_bucket;
      worst = i;
    }
  if (in_bucket >= per_count_) {
    if (less(kept_[worst], key, c.index)) return;  // worse than every member of its bucket
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(worst));
  }
  auto at = std::lower_bound(kept_.begin(), kept_.end(), std::make_pair(key, c),
                             [&](const auto& a, const auto& b) { return less(a, b.first, b.second.index); });
  kept_.insert(at, {key, c});
  if (kept_.size() > capacity_) kept_.pop_back();
}

void RankedList::merge(const RankedList& other) {
  for (const auto& [key, c] : other.kept_) offer(c, key);
}

double RankedList::threshold(const PlanCandidate& c) const {
  double t = std::numeric_limits<double>::infinity();
  if (capacity_ == 0 || per_count_ == 0) return -t;
  if (kept_.size() >= capacity_) t = kept_.back().first;
  std::size_t in_bucket = 0;
  double worst = t;
  for (const auto& [key, x] : kept_)
    if (same_bucket(x, c)) {
      ++in_bucket;
      worst = key;
    }
  return in_bucket >= per_count_ ? std::min(t, worst) : t;
}

std::vector<PlanCandidate> RankedList::sorted() const {
  std::vector<PlanCandidate> out;
  out.reserve(kept_.size());
  for (const auto& [k, c] : kept_) out.push_back(c);
  return out;
}

}  // namespace detail

}  // namespace flopcast::search
