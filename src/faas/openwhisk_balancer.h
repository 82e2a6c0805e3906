// The OpenWhisk-like baseline's load balancer, as OpenWhisk's ShardingContainerPoolBalancer
// places activations (shared by `faas-sim` and the real platform's "openwhisk").
//
// Each action (a key: a function in the simulator) has a home invoker, hash % invokers, and a
// step, one of the numbers up to the invoker count that are coprime with it and with each other
// (hash % how many there are). An activation takes `bytes` of its invoker's memory slots (the
// action's memory) until Release. Acquire tries the home invoker, then home + step, home + 2 step,
// ... (every invoker once, the step being coprime with the count); the first usable one whose
// free slots hold `bytes` takes it. When none does, a usable invoker drawn at random (a
// deterministic generator seeded at construction) takes it anyway (forced: its slots may go past
// its memory). Slots are memory, not cores: an invoker accepts activations beyond its cores while
// its memory has room, and they queue there; the spill comes only when the home's memory is full.
#ifndef JIGSAW_FAAS_OPENWHISK_BALANCER_H_
#define JIGSAW_FAAS_OPENWHISK_BALANCER_H_

#include <cstdint>
#include <vector>

namespace jigsaw::faas {

class OpenWhiskBalancer {
 public:
  // slot_bytes[i]: invoker i's memory for activations. Throws std::invalid_argument when empty.
  OpenWhiskBalancer(std::vector<uint64_t> slot_bytes, uint64_t seed);

  uint32_t Home(uint64_t action) const;
  uint32_t Step(uint64_t action) const;
  // The invoker that takes the activation, or -1 when no invoker is usable.
  int Acquire(uint64_t action, uint64_t bytes, const std::vector<char>& usable);
  void Release(uint32_t invoker, uint64_t bytes);
  // The invoker is gone with everything it held (its activations are re-acquired elsewhere).
  void Clear(uint32_t invoker) { used_[invoker] = 0; }

  uint64_t used(uint32_t invoker) const { return used_[invoker]; }
  uint64_t spilled() const { return spilled_; }  // taken by an invoker other than the home
  uint64_t forced() const { return forced_; }    // no invoker had room: a random one took it

 private:
  std::vector<uint64_t> slot_bytes_;
  std::vector<uint64_t> used_;
  std::vector<uint32_t> steps_;
  uint64_t rng_state_;
  uint64_t spilled_ = 0;
  uint64_t forced_ = 0;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_OPENWHISK_BALANCER_H_
