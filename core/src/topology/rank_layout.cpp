#include "flopcast/topology/rank_layout.hpp"

#include <algorithm>

namespace flopcast::topology {

const char* to_string(ParallelDim d) {
  switch (d) {
    case ParallelDim::TP:
      return "tp";
    case ParallelDim::CP:
      return "cp";
    case ParallelDim::EP:
      return "ep";
    case ParallelDim::DP:
      return "dp";
    case ParallelDim::PP:
      return "pp";
  }
  return "?";
}

std::optional<ParallelDim> parse_parallel_dim(std::string_view s) {
  for (ParallelDim d : {ParallelDim::TP, ParallelDim::CP, ParallelDim::EP, ParallelDim::DP, ParallelDim::PP}) {
    if (s == to_string(d)) return d;
  }
  return std::nullopt;
}

namespace {

constexpr int kTp = 0, kCp = 1, kDp = 2, kPp = 3;

int slot_of(ParallelDim d) {
  switch (d) {
    case ParallelDim::TP:
      return kTp;
    case ParallelDim::CP:
      return kCp;
    case ParallelDim::DP:
      return kDp;
    case ParallelDim::PP:
      return kPp;
    case ParallelDim::EP:
      return -1;
  }
  return -1;
}

bool fail(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return false;
}

}  // namespace

std::optional<RankLayout> RankLayout::create(const parallel::ParallelPlan& plan, std::string_view order,
                                             std::string* error) {
  RankLayout l;
  std::vector<ParallelDim> dims;
  std::size_t pos = 0;
  while (pos <= order.size()) {
    const std::size_t dash = order.find('-', pos);
    const std::string_view tok =
        order.substr(pos, dash == std::string_view::npos ? std::string_view::npos : dash - pos);
    const auto d = parse_parallel_dim(tok);
    if (!d) {
      fail(error, "rank order '" + std::string(order) + "': unknown dimension '" + std::string(tok) +
                      "' (expected a permutation of tp, cp, dp, pp with optional ep, e.g. '" +
                      std::string(kMegatronRankOrder) + "')");
      return std::nullopt;
    }
    if (std::find(dims.begin(), dims.end(), *d) != dims.end()) {
      fail(error, "rank order '" + std::string(order) + "': '" + std::string(tok) + "' appears twice");
      return std::nullopt;
    }
    dims.push_back(*d);
    if (dash == std::string_view::npos) break;
    pos = dash + 1;
  }
  for (ParallelDim need : {ParallelDim::TP, ParallelDim::CP, ParallelDim::DP, ParallelDim::PP}) {
    if (std::find(dims.begin(), dims.end(), need) == dims.end()) {
      fail(error, "rank order '" + std::string(order) + "': missing '" + to_string(need) + "'");
      return std::nullopt;
    }
  }
  const auto ep_at = std::find(dims.begin(), dims.end(), ParallelDim::EP);
  const auto dp_at = std::find(dims.begin(), dims.end(), ParallelDim::DP);
  if (ep_at != dims.end()) {
    const auto gap = ep_at - dp_at;
    if (gap != 1 && gap != -1) {
      fail(error,
           "rank order '" + std::string(order) +
               "': 'ep' must be next to 'dp' (expert-parallel groups are carved out of the data-parallel ranks)");
      return std::nullopt;
    }
    l.ep_inner_ = gap == -1;
  }

  l.size_ = {std::max(1, plan.tp), std::max(1, plan.cp), std::max<std::int64_t>(1, plan.dp), std::max(1, plan.pp)};
  std::int64_t stride = 1;
  std::vector<int> tiling;
  for (ParallelDim d : dims) {
    const int s = slot_of(d);
    if (s < 0) continue;
    tiling.push_back(s);
    l.stride_[static_cast<std::size_t>(s)] = stride;
    stride *= l.size_[static_cast<std::size_t>(s)];
  }
  l.world_ = stride;

  l.ep_ = std::max(1, plan.ep);
  // CP folds into the expert data-parallel index when it sits just inside DP (Megatron's
  // expert groups span the CP x DP ranks).
  const auto cp_pos = std::find(tiling.begin(), tiling.end(), kCp) - tiling.begin();
  const auto dp_pos = std::find(tiling.begin(), tiling.end(), kDp) - tiling.begin();
  const std::int64_t dp = l.size_[kDp], cp = l.size_[kCp];
  if (l.ep_ > 1) {
    if (dp % l.ep_ == 0) {
      l.ep_folds_cp_ = false;
    } else if (cp > 1 && cp_pos + 1 == dp_pos && (cp * dp) % l.ep_ == 0) {
      l.ep_folds_cp_ = true;
    } else {
      fail(error, "ep " + std::to_string(l.ep_) + " must divide dp " + std::to_string(dp) +
                      (cp > 1 ? " (or cp x dp " + std::to_string(cp * dp) + " when 'cp' is just inside 'dp')"
                              : std::string()));
      return std::nullopt;
    }
  }

  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) l.order_ += '-';
    l.order_ += to_string(dims[i]);
  }
  return l;
}

std::int64_t RankLayout::size(ParallelDim d) const {
  if (d == ParallelDim::EP) return ep_;
  return size_[static_cast<std::size_t>(slot_of(d))];
}

std::array<std::int64_t, 4> RankLayout::coords_of(std::int64_t rank) const {
  std::array<std::int64_t, 4> c{};
  for (std::size_t s = 0; s < 4; ++s) c[s] = (rank / stride_[s]) % size_[s];
  return c;
}

std::int64_t RankLayout::rank_of(const std::array<std::int64_t, 4>& c) const {
  std::int64_t r = 0;
  for (std::size_t s = 0; s < 4; ++s) r += c[s] * stride_[s];
  return r;
}

std::int64_t RankLayout::coordinate(ParallelDim d, std::int64_t rank) const {
  const auto c = coords_of(rank);
  if (d != ParallelDim::EP) return c[static_cast<std::size_t>(slot_of(d))];
  const std::int64_t data = ep_folds_cp_ ? c[kCp] + size_[kCp] * c[kDp] : c[kDp];
  const std::int64_t span = ep_folds_cp_ ? size_[kCp] * size_[kDp] : size_[kDp];
  return ep_inner_ ? data % ep_ : data / (span / ep_);
}

std::vector<std::int64_t> RankLayout::group(ParallelDim d, std::int64_t rank) const {
  std::vector<std::int64_t> out;
  auto c = coords_of(rank);
  if (d != ParallelDim::EP) {
    const auto s = static_cast<std::size_t>(slot_of(d));
    out.reserve(static_cast<std::size_t>(size_[s]));
    for (std::int64_t i = 0; i < size_[s]; ++i) {
      c[s] = i;
      out.push_back(rank_of(c));
    }
    return out;
  }
  const std::int64_t span = ep_folds_cp_ ? size_[kCp] * size_[kDp] : size_[kDp];
  const std::int64_t data = ep_folds_cp_ ? c[kCp] + size_[kCp] * c[kDp] : c[kDp];
  const std::int64_t outer = span / ep_;
  out.reserve(static_cast<std::size_t>(ep_));
  for (std::int64_t i = 0; i < ep_; ++i) {
    // Inner: EP members are consecutive data indices; outer: one per block of `outer`.
    const std::int64_t di = ep_inner_ ? (data / ep_) * ep_ + i : (data % outer) + i * outer;
    if (ep_folds_cp_) {
      c[kCp] = di % size_[kCp];
      c[kDp] = di / size_[kCp];
    } else {
      c[kDp] = di;
    }
    out.push_back(rank_of(c));
  }
  return out;
}

GroupShape RankLayout::shape(ParallelDim d, int gpus_per_node) const { return shape_of(group(d, 0), gpus_per_node); }

}  // namespace flopcast::topology
