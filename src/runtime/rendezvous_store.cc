#include "runtime/rendezvous_store.h"

#include <stdexcept>

#include "core/handshake_client.h"
#include "runtime/rendezvous_keys.h"
#include "runtime/rendezvous_server.h"

namespace jigsaw {
namespace {

std::string Join(const std::vector<std::string>& keys) {
  std::string text;
  for (const std::string& k : keys) text += (text.empty() ? "" : ", ") + k;
  return text;
}

}  // namespace

RendezvousStore::RendezvousStore(const RendezvousOptions& options)
    : c10d::Store(options.timeout), options_(options) {
  if (options.rank == 0) {
    keys_ = std::make_shared<RendezvousKeys>();
    RendezvousServerOptions server;
    server.host = options.host;
    server.port = options.port;
    server.world = options.world;
    server.token = options.token;
    server.handshake_timeout_s = options.handshake_timeout_s;
    server.max_pending = options.max_pending;
    server.log = options.log;
    server_ = std::make_unique<RendezvousServer>(server, keys_);
    port_ = server_->port();
    return;
  }
  port_ = options.port;
  const wire::Message hello{wire::MessageType::kHello,
                            static_cast<uint32_t>(options.rank),
                            static_cast<uint64_t>(options.world),
                            {}};
  socket_ = wire::HelloWithRetry(
      options.host, options.port, std::chrono::duration<double>(options.timeout).count(), hello,
      options.token,
      "joining the rendezvous at " + options.host + ":" + std::to_string(options.port));
}

RendezvousStore::~RendezvousStore() {
  server_.reset();  // before the keys: its threads use them
  socket_ = wire::Socket();
}

RendezvousStore::Args RendezvousStore::Call(uint32_t op, const Args& args) {
  RendezvousKeys::Result result;
  if (keys_) {
    result = keys_->Execute(op, args);
  } else {
    std::lock_guard<std::mutex> lock(call_mutex_);
    // A request may wait on rank 0 up to its timeout; a rank 0 that stopped answering is a
    // broken rendezvous after that plus a margin.
    wire::SetReceiveTimeout(socket_.fd(), std::chrono::duration<double>(timeout_).count() + 30.0);
    WriteRendezvousFrame(socket_.fd(), op, args);
    if (!ReadRendezvousFrame(socket_.fd(), &result.status, &result.args)) {
      throw std::runtime_error("the rendezvous (rank 0) closed the connection");
    }
  }
  if (result.status == kRvTimeout) {
    throw std::runtime_error("rendezvous: timed out after " + std::to_string(timeout_.count()) +
                             " ms waiting for keys");
  }
  if (result.status != kRvOk) {
    throw std::runtime_error("rendezvous: " +
                             (result.args.empty() ? std::string("error") : result.args[0]));
  }
  return result.args;
}

void RendezvousStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  Call(kRvSet, {key, std::string(value.begin(), value.end())});
}

std::vector<uint8_t> RendezvousStore::compareSet(const std::string& key,
                                                 const std::vector<uint8_t>& expected,
                                                 const std::vector<uint8_t>& desired) {
  const Args reply = Call(kRvCompareSet, {key, std::string(expected.begin(), expected.end()),
                                          std::string(desired.begin(), desired.end())});
  if (reply.size() != 1) throw std::runtime_error("rendezvous: malformed compareSet reply");
  return std::vector<uint8_t>(reply[0].begin(), reply[0].end());
}

std::vector<uint8_t> RendezvousStore::get(const std::string& key) {
  Args reply;
  try {
    reply = Call(kRvGet, {key, EncodeInt64(timeout_.count())});
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (get " + key + ")");
  }
  if (reply.size() != 1) throw std::runtime_error("rendezvous: malformed get reply");
  return std::vector<uint8_t>(reply[0].begin(), reply[0].end());
}

int64_t RendezvousStore::add(const std::string& key, int64_t value) {
  const Args reply = Call(kRvAdd, {key, EncodeInt64(value)});
  if (reply.size() != 1) throw std::runtime_error("rendezvous: malformed add reply");
  return DecodeInt64(reply[0]);
}

bool RendezvousStore::deleteKey(const std::string& key) {
  const Args reply = Call(kRvDelete, {key});
  return reply.size() == 1 && reply[0] == std::string(1, '\1');
}

bool RendezvousStore::check(const std::vector<std::string>& keys) {
  const Args reply = Call(kRvCheck, keys);
  return reply.size() == 1 && reply[0] == std::string(1, '\1');
}

int64_t RendezvousStore::getNumKeys() {
  const Args reply = Call(kRvNumKeys, {});
  if (reply.size() != 1) throw std::runtime_error("rendezvous: malformed getNumKeys reply");
  return DecodeInt64(reply[0]);
}

void RendezvousStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void RendezvousStore::wait(const std::vector<std::string>& keys,
                           const std::chrono::milliseconds& timeout) {
  Args args = {EncodeInt64(timeout.count())};
  args.insert(args.end(), keys.begin(), keys.end());
  try {
    Call(kRvWait, args);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (wait for " + Join(keys) + ")");
  }
}

}  // namespace jigsaw
