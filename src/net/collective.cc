#include "net/collective.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace jigsaw::net {

bool ParseCollectiveType(std::string_view text, CollectiveType* type) {
  if (text == "ALLREDUCE" || text == "allreduce") {
    *type = CollectiveType::kAllReduce;
  } else if (text == "ALLGATHER" || text == "allgather") {
    *type = CollectiveType::kAllGather;
  } else if (text == "REDUCESCATTER" || text == "reducescatter") {
    *type = CollectiveType::kReduceScatter;
  } else if (text == "ALLTOALL" || text == "alltoall") {
    *type = CollectiveType::kAllToAll;
  } else {
    return false;
  }
  return true;
}

const char* CollectiveTypeName(CollectiveType type) {
  switch (type) {
    case CollectiveType::kAllReduce:
      return "allreduce";
    case CollectiveType::kAllGather:
      return "allgather";
    case CollectiveType::kReduceScatter:
      return "reducescatter";
    case CollectiveType::kAllToAll:
      return "alltoall";
  }
  return "?";
}

CollectiveEngine::CollectiveEngine(Network* network) : network_(network) {
  network_->set_observer(this);
}

uint32_t CollectiveEngine::Start(const CollectiveSpec& spec, CollectiveClient* client) {
  const uint32_t ranks = static_cast<uint32_t>(spec.hosts.size());
  if (ranks < 2) throw UsageError("a collective needs at least 2 hosts");
  if (spec.chunks < 1) throw UsageError("chunks must be at least 1");
  std::vector<int> dims = spec.dims.empty() ? std::vector<int>{static_cast<int>(ranks)} : spec.dims;
  uint64_t product = 1;
  for (int d : dims) {
    if (d < 1) throw UsageError("dimensions must be positive");
    product *= static_cast<uint64_t>(d);
  }
  if (product != ranks) {
    throw UsageError("the dimensions' product (" + std::to_string(product) +
                     ") must equal the group size (" + std::to_string(ranks) + ")");
  }

  Collective c;
  c.hosts = spec.hosts;
  c.dims = dims;
  c.chunks = spec.chunks;
  c.client = client;
  c.start = network_->now();
  const uint64_t chunk_bytes =
      std::max<uint64_t>(1, spec.bytes / static_cast<uint64_t>(spec.chunks));
  auto step_bytes = [](uint64_t bytes, uint64_t parts) {
    return std::max<uint64_t>(1, bytes / parts);
  };
  std::vector<Phase> scatter;  // reduce-scatter phases, outermost last
  uint64_t share = chunk_bytes;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    scatter.push_back({static_cast<int>(d), dims[d] - 1, step_bytes(share, dims[d])});
    share = step_bytes(share, dims[d]);
  }
  switch (spec.type) {
    case CollectiveType::kAllReduce:
      c.phases = scatter;
      c.phases.insert(c.phases.end(), scatter.rbegin(), scatter.rend());
      break;
    case CollectiveType::kReduceScatter:
      c.phases = scatter;
      break;
    case CollectiveType::kAllGather:
      c.phases.assign(scatter.rbegin(), scatter.rend());
      break;
    case CollectiveType::kAllToAll:
      c.phases.push_back({-1, 1, step_bytes(chunk_bytes, ranks)});
      break;
  }
  const size_t slots = static_cast<size_t>(c.chunks) * ranks;
  c.phase.assign(slots, 0);
  c.sent.assign(slots, 0);
  c.received.assign(slots * c.phases.size(), 0);
  c.ranks_left = static_cast<uint32_t>(slots);
  const uint32_t id = static_cast<uint32_t>(collectives_.size());
  collectives_.push_back(std::move(c));
  for (uint32_t chunk = 0; chunk < static_cast<uint32_t>(spec.chunks); ++chunk) {
    for (uint32_t rank = 0; rank < ranks; ++rank) Advance(id, chunk, rank);
  }
  return id;
}

uint32_t CollectiveEngine::RingNext(const Collective& c, int dim, uint32_t rank) const {
  uint32_t stride = 1;
  for (int d = 0; d < dim; ++d) stride *= static_cast<uint32_t>(c.dims[d]);
  const uint32_t size = static_cast<uint32_t>(c.dims[dim]);
  const uint32_t coord = (rank / stride) % size;
  const uint32_t next = (coord + 1) % size;
  return rank - coord * stride + next * stride;
}

void CollectiveEngine::Send(uint32_t id, uint32_t chunk, uint32_t phase, uint32_t src_rank,
                            uint32_t dst_rank, uint64_t bytes) {
  const Collective& c = collectives_[id];
  messages_.push_back({id, chunk, phase, dst_rank});
  const uint64_t tag = messages_.size();  // 1-based: tag 0 is a flow that is not a message
  network_->AddFlow(c.hosts[src_rank], c.hosts[dst_rank], bytes, network_->now(), tag);
}

void CollectiveEngine::Advance(uint32_t id, uint32_t chunk, uint32_t rank) {
  Collective& c = collectives_[id];
  const uint32_t ranks = static_cast<uint32_t>(c.hosts.size());
  const size_t slot = static_cast<size_t>(chunk) * ranks + rank;
  while (c.phase[slot] < c.phases.size()) {
    const uint32_t p = c.phase[slot];
    const Phase& phase = c.phases[p];
    const uint32_t received = c.received[slot * c.phases.size() + p];
    uint32_t& sent = c.sent[slot];
    uint32_t expected;
    if (phase.dim < 0) {
      expected = ranks - 1;
      if (sent == 0) {
        for (uint32_t offset = 1; offset < ranks; ++offset) {
          Send(id, chunk, p, rank, (rank + offset) % ranks, phase.step_bytes);
        }
        sent = 1;
      }
    } else {
      expected = static_cast<uint32_t>(phase.steps);
      while (sent < expected && sent <= received) {
        Send(id, chunk, p, rank, RingNext(c, phase.dim, rank), phase.step_bytes);
        ++sent;
      }
    }
    if (received < expected) return;
    ++c.phase[slot];
    sent = 0;
  }
  if (--c.ranks_left == 0) {
    c.end = network_->now();
    if (c.client != nullptr) c.client->OnCollectiveDone(id);
  }
}

void CollectiveEngine::OnFlowDelivered(uint32_t flow, uint64_t tag) {
  // Flows added by others (background traffic, flow files) share the Network and its observer.
  if (tag == 0 || tag > messages_.size()) return;
  const Message message = messages_[tag - 1];
  Collective& c = collectives_[message.collective];
  const size_t slot = static_cast<size_t>(message.chunk) * c.hosts.size() + message.dst_rank;
  ++c.received[slot * c.phases.size() + message.phase];
  if (c.phase[slot] == message.phase) Advance(message.collective, message.chunk, message.dst_rank);
}

void CollectiveEngine::OnTimer(uint32_t token) {
  if (timer_client_ != nullptr) timer_client_->OnTimer(token);
}

}  // namespace jigsaw::net
