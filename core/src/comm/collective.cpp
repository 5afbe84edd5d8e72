#include "flopcast/comm/collective.hpp"

#include <cctype>
#include <string>

namespace flopcast::comm {

namespace {

// Lower case without '_', '-' and ' ' so "All_Reduce", "allreduce" and "all-reduce" match.
std::string squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

const char* to_string(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all_reduce";
    case Collective::AllGather:
      return "all_gather";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::AllToAll:
      return "all_to_all";
    case Collective::Broadcast:
      return "broadcast";
    case Collective::SendRecv:
      return "send_recv";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view s) {
  const std::string k = squash(s);
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll,
                       Collective::Broadcast, Collective::SendRecv}) {
    if (k == squash(to_string(c))) return c;
  }
  if (k == "sendrecv" || k == "p2p") return Collective::SendRecv;
  return std::nullopt;
}

const char* to_string(CommAlgorithm a) {
  switch (a) {
    case CommAlgorithm::Ring:
      return "Ring";
    case CommAlgorithm::Tree:
      return "Tree";
    case CommAlgorithm::Nvls:
      return "NVLS";
    case CommAlgorithm::NvlsTree:
      return "NVLSTree";
    case CommAlgorithm::Pat:
      return "PAT";
    case CommAlgorithm::P2p:
      return "P2P";
    case CommAlgorithm::None:
      return "none";
  }
  return "?";
}

std::optional<CommAlgorithm> parse_comm_algorithm(std::string_view s) {
  const std::string k = squash(s);
  for (CommAlgorithm a : {CommAlgorithm::Ring, CommAlgorithm::Tree, CommAlgorithm::Nvls, CommAlgorithm::NvlsTree,
                          CommAlgorithm::Pat, CommAlgorithm::P2p}) {
    if (k == squash(to_string(a))) return a;
  }
  return std::nullopt;
}

const char* to_string(CommProtocol p) {
  switch (p) {
    case CommProtocol::LL:
      return "LL";
    case CommProtocol::LL128:
      return "LL128";
    case CommProtocol::Simple:
      return "Simple";
  }
  return "?";
}

std::optional<CommProtocol> parse_comm_protocol(std::string_view s) {
  const std::string k = squash(s);
  for (CommProtocol p : {CommProtocol::LL, CommProtocol::LL128, CommProtocol::Simple}) {
    if (k == squash(to_string(p))) return p;
  }
  return std::nullopt;
}

double bus_bandwidth_factor(Collective op, std::int64_t ranks) {
  if (ranks <= 1) return 0.0;
  const double n = static_cast<double>(ranks);
  switch (op) {
    case Collective::AllReduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll:
      return (n - 1.0) / n;
    case Collective::Broadcast:
    case Collective::SendRecv:
      return 1.0;
  }
  return 1.0;
}

}  // namespace flopcast::comm
