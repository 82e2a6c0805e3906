// jigsaw: SPB-aware co-location, planned every round (docs/jigsaw.md), and its two ablations.
//
// The jobs that run alone on whole gangs come from a base planner: `shockwave` (default; its
// plans are work-conserving and makespan-aware) or `least_served` (least-served first while gangs
// fit). Each job left over, least served first, is then offered to the placed jobs (hosts); it
// goes where it raises the normalised goodput (sum over jobs of rate x GPUs: what the goodput
// metrics sum) the most, if that gain (net of what the host loses) exceeds min_gain x the GPUs
// the guest occupies, the host keeps min_host_rate of its speed and, slowed down, does not
// outlast the longest remaining job (the critical-path guard). The kinds of placement and their
// rates (packing, interleave, SPB guests, guests in a frozen phase's freed capacity) are
// policies/guest_plans.h's. With phase plans (PolicyOptions::spb_phases; jigsaw and spb_only) a
// job alone runs its adaptive plan: full backprop in its warm-up, then its frozen phases at their
// efficiency / iteration time. Policies: jigsaw (all kinds), packing (packing only) and spb_only
// (the SPB kinds only). The plan can change every round without a restart: SPB changes which
// backward work a worker does, not its state.
#include "cluster/policies/jigsaw.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "cluster/policies/colocation.h"
#include "cluster/policies/guest_plans.h"
#include "cluster/policies/jigsaw_warm_order.h"
#include "cluster/policies/policies.h"
#include "cluster/policies/prefix_order.h"
#include "cluster/spb_cost_model.h"
#include "cluster/spb_phase_model.h"
#include "core/error.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"

namespace jigsaw {
namespace {

// What PlanGuest reads of a host besides the fixed class data, and the guest's class.
struct PlanKey {
  int host_class, host_mode, used_workers, guest_class;
  double host_rate, host_speed;
  bool operator==(const PlanKey& o) const {
    return host_class == o.host_class && host_mode == o.host_mode &&
           used_workers == o.used_workers && guest_class == o.guest_class &&
           host_rate == o.host_rate && host_speed == o.host_speed;
  }
};
struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = std::hash<int>()(k.host_class);
    for (size_t part : {std::hash<int>()(k.host_mode), std::hash<int>()(k.used_workers),
                        std::hash<int>()(k.guest_class), std::hash<double>()(k.host_rate),
                        std::hash<double>()(k.host_speed)}) {
      h = h * 1000003u ^ part;
    }
    return h;
  }
};

class JigsawPolicy : public Policy {
 public:
  JigsawPolicy(std::string name, const PolicyOptions& options, bool use_packing, bool use_spb,
               bool reference_scan = false)
      : name_(std::move(name)),
        options_(options),
        tunables_(options.colocation),
        pairs_(options.colocation_throughputs != nullptr ? options.colocation_throughputs
                                                         : options.throughputs),
        use_packing_(use_packing),
        use_spb_(use_spb && options.spb != nullptr),
        phases_(use_spb ? options.spb_phases : nullptr),
        reference_scan_(reference_scan),
        planner_(options_, pairs_, use_packing_, use_spb_) {
    if (options.colocation_base == "shockwave") {
      base_ = MakeShockwavePolicy(options);
    } else if (options.colocation_base != "least_served") {
      throw UsageError(
          "the co-location base planner (--colocation-base) must be shockwave or "
          "least_served, got '" +
          options.colocation_base + "'");
    }
  }

  // The base planner calibrates its predictions from observed throughputs: report a shared
  // round's progress at the job's isolated speed (steps / rate), not its co-located speed.
  void ObserveRun(int job_id, int round, double steps, double execution_s,
                  int batch_size) override {
    if (base_ == nullptr) return;
    const double rate = LastRate(job_id);
    if (rate > 0) steps /= rate;
    base_->ObserveRun(job_id, round, steps, execution_s, batch_size);
  }
  void ObserveCompletion(int job_id, double now_s) override {
    if (base_ != nullptr) base_->ObserveCompletion(job_id, now_s);
    if (job_id < 0) {
      class_of_negative_.erase(job_id);
    } else if (static_cast<size_t>(job_id) < class_of_.size()) {
      class_of_[job_id] = {0, -1};
    }
  }
  void ObserveArrival(int job_id, double now_s) override {
    if (base_ != nullptr) base_->ObserveArrival(job_id, now_s);
  }

  std::string name() const override { return name_; }
  bool PlansRounds() const override { return true; }
  bool ReportsSpb() const override { return use_spb_; }
  std::vector<double> Allocate(const PolicyContext&, const std::vector<PolicyJob>& jobs) override {
    return std::vector<double>(jobs.size(), 0.0);
  }

  std::vector<Placement> PlanPlacements(const PolicyContext& context,
                                        const std::vector<PolicyJob>& jobs) override {
    // Hosts: the base plan's jobs in its order, or every job least served first, while they fit.
    std::vector<size_t> candidates;
    if (base_ != nullptr) {
      // The view's index of each id: a vector by id (trace ids are dense), a map for others.
      std::unordered_map<int, size_t> negative;
      for (size_t j = 0; j < jobs.size(); ++j) {
        const int id = jobs[j].id;
        if (id < 0) {
          negative[id] = j;
          continue;
        }
        if (static_cast<size_t>(id) >= view_index_.size()) view_index_.resize(id + 1, -1);
        view_index_[id] = static_cast<long long>(j);
      }
      for (int id : base_->PlanRound(context, jobs)) {
        if (id < 0) {
          auto it = negative.find(id);
          if (it != negative.end()) candidates.push_back(it->second);
        } else if (static_cast<size_t>(id) < view_index_.size() && view_index_[id] >= 0) {
          candidates.push_back(static_cast<size_t>(view_index_[id]));
        }
      }
      for (const PolicyJob& job : jobs) {
        if (job.id >= 0) view_index_[job.id] = -1;
      }
    } else {
      candidates = LeastServedOrder(jobs);
    }
    std::vector<Placement> placements;
    std::vector<HostState> hosts;
    std::vector<char> placed(jobs.size(), 0);
    int free_gpus = context.gpus;
    for (size_t j : candidates) {
      if (placed[j] || jobs[j].scale_factor > free_gpus) continue;
      free_gpus -= jobs[j].scale_factor;
      Placement placement;
      placement.job_id = jobs[j].id;
      placements.push_back(placement);
      HostState host;
      host.job = j;
      if (phases_ != nullptr) {  // alone, the job runs its phase plan's current phase
        host.job_class = ClassOf(jobs[j]);
        const JobClass& c = classes_[host.job_class];
        host.rate = placements.back().rate = c.alone_rate;
        host.speed = c.alone_speed;
        if (c.phase != nullptr) {
          host.bytes = c.alone_frozen ? c.phase->bytes : 1.0;
          placements.back().spb = {SpbRoundPlan::kAdaptive, c.alone_frozen ? c.phase->compute : 1.0,
                                   false};
        }
      }
      hosts.push_back(host);
      placed[j] = 1;
    }
    AddGuests(jobs, placed, &placements, &hosts);
    for (int id : last_rate_ids_) last_rate_[id] = 0;
    last_rate_ids_.clear();
    last_rate_negative_.clear();
    for (const Placement& p : placements) {
      SetLastRate(p.job_id, p.rate);
      for (const Guest& g : p.guests) SetLastRate(g.job_id, g.rate);
    }
    return placements;
  }

 private:
  // The job's rate in the last planned round; 0 if it did not run.
  double LastRate(int id) const {
    if (id < 0) {
      auto it = last_rate_negative_.find(id);
      return it == last_rate_negative_.end() ? 0.0 : it->second;
    }
    return static_cast<size_t>(id) < last_rate_.size() ? last_rate_[id] : 0.0;
  }
  void SetLastRate(int id, double rate) {
    if (id < 0) {
      last_rate_negative_[id] = rate;
      return;
    }
    if (static_cast<size_t>(id) >= last_rate_.size()) last_rate_.resize(id + 1, 0.0);
    last_rate_[id] = rate;
    last_rate_ids_.push_back(id);
  }

  // The class of a job (computed once per job, batch size and phase of its phase plan).
  int ClassOf(const PolicyJob& job) {
    std::pair<int, int>* cached = CachedClass(job.id);
    int phase = 0;
    if (cached->second >= 0 && cached->first == job.batch_size) {
      const JobClass& c = classes_[cached->second];
      if (c.phases == nullptr) return cached->second;
      phase = c.phases->Index(job.total_steps > 0 ? job.steps_run / job.total_steps : 0.0);
      if (phase == c.phase_index) return cached->second;
    }
    const bool typed = job.spec != nullptr && job.spec->typed() && job.batch_size > 0;
    const JobPhases* phases =
        typed && phases_ != nullptr
            ? phases_->Phases(job.spec->model, job.batch_size, job.scale_factor)
            : nullptr;
    if (phases != nullptr) {
      phase = phases->Index(job.total_steps > 0 ? job.steps_run / job.total_steps : 0.0);
    }
    const auto key = std::make_tuple(typed ? job.spec->model : std::string(), job.batch_size,
                                     job.scale_factor, job.throughput, phase);
    auto it = class_index_.find(key);
    if (it == class_index_.end()) {
      JobClass c;
      c.gpus = job.scale_factor;
      c.throughput = job.throughput;
      c.memory_mb = WorkerMemoryMb(job);
      c.colocatable = typed && c.memory_mb > 0;
      c.example = nullptr;
      if (c.colocatable && options_.spb != nullptr) {
        const std::vector<SpbOption>& spb =
            options_.spb->Options(job.spec->model, job.batch_size, job.scale_factor);
        if (use_spb_ && spb.size() > 1) c.staircase = &spb[1];
        c.full_bytes =
            options_.spb->FullBytesPerWorker(job.spec->model, job.batch_size, job.scale_factor);
      }
      if (phases != nullptr) {
        c.phases = phases;
        c.phase_index = phase;
        c.phase = &phases->phases[phase];
        const double speed = 1.0 / c.phase->iteration_time;
        if (c.phase->saves && c.phase->efficiency * speed > 1.0) {
          c.alone_frozen = true;
          c.alone_speed = speed;
          c.alone_rate = c.phase->efficiency * speed;
        }
      }
      // The example's spec and batch stay valid: JobSpecs outlive the run, and the class key
      // includes everything the table lookups read.
      example_jobs_.push_back(std::make_unique<PolicyJob>(job));
      c.example = example_jobs_.back().get();
      classes_.push_back(c);
      it = class_index_.emplace(key, static_cast<int>(classes_.size()) - 1).first;
    }
    *CachedClass(job.id) = {job.batch_size, it->second};
    return it->second;
  }

  // The (batch, class) cache entry of a job id; class -1 when none.
  std::pair<int, int>* CachedClass(int id) {
    if (id < 0) return &class_of_negative_.try_emplace(id, 0, -1).first->second;
    if (static_cast<size_t>(id) >= class_of_.size()) class_of_.resize(id + 1, {0, -1});
    return &class_of_[id];
  }

  // The reference search's round state (MakeReferenceScanColocationPolicy): the hosts that can
  // still take a guest, grouped by state, each group in placement order (hosts in one group are
  // interchangeable except for their own remaining time, progress and, for SPB hosts, rate), and
  // the plans computed so far, per group and guest class, each from the group's first host when
  // first needed.
  struct ReferenceOffer {
    std::map<std::tuple<int, int, int>, std::set<size_t>> groups;
    std::map<std::tuple<int, int, int, int>, Plan> plans;
    size_t open_hosts = 0;  // hosts in the groups: none left, no later guest can be placed
    double longest_remaining_s = 0;
  };

  // The same state without allocation per round: groups from a pool kept across rounds (one
  // per key), visited in key order. A group's plan for a guest class is fixed at its first use in
  // a round, from the group's first host (as the reference does); each group remembers the plans
  // of the host state it last saw, so a round whose first host is in the same state looks none up.
  struct GroupPlan {
    long long round = -1;                      // the round `plan` is fixed for
    const Plan* plan = nullptr;                // this round's
    bool possible = false, guest_spb = false;  // this round's plan's (read without a lookup)
    const Plan* recent = nullptr;  // the plan for a first host with rate `rate`, speed `speed`
    double rate = 0, speed = 0;
  };
  struct Group {
    std::tuple<int, int, int> key;
    long long round = -1;          // the round `members` belong to
    std::vector<size_t> members;   // ascending
    std::vector<GroupPlan> plans;  // by guest class
  };
  struct Offer {
    std::vector<int> order;   // indices into group_pool_, ascending keys
    std::vector<int> others;  // those of hosts not alone (kExclusive or kSpb), ascending keys
    size_t open_hosts = 0;    // hosts in the groups: none left, no later guest can be placed
    double longest_remaining_s = 0;
  };

  static std::tuple<int, int, int> GroupKey(const HostState& h) {
    return std::make_tuple(h.job_class, static_cast<int>(h.mode), h.used_workers);
  }

  // The group of `key` (created empty if the round has none yet).
  Group& GroupOf(const std::tuple<int, int, int>& key, Offer* offer) {
    auto [slot, created] = group_index_.try_emplace(key, static_cast<int>(group_pool_.size()));
    if (created) {
      group_pool_.emplace_back();
      group_pool_.back().key = key;
    }
    const int g = slot->second;
    Group& group = group_pool_[g];
    if (group.round != offer_round_) {
      group.round = offer_round_;
      group.members.clear();
      if (group.plans.size() < classes_.size()) group.plans.resize(classes_.size());
      auto at = std::lower_bound(
          offer->order.begin(), offer->order.end(), key,
          [&](int a, const std::tuple<int, int, int>& k) { return group_pool_[a].key < k; });
      offer->order.insert(at, g);
      if (std::get<1>(key) != static_cast<int>(HostMode::kAlone)) {
        auto other = std::lower_bound(
            offer->others.begin(), offer->others.end(), key,
            [&](int a, const std::tuple<int, int, int>& k) { return group_pool_[a].key < k; });
        offer->others.insert(other, g);
      }
    }
    return group;
  }

  // The group's plan for `guest_class` this round (fixed at its first use, from the first host).
  const GroupPlan& GroupPlanFor(Group* group, int guest_class,
                                const std::vector<HostState>& hosts) {
    GroupPlan& entry = group->plans[guest_class];
    if (entry.round == offer_round_) return entry;
    const HostState& example = hosts[group->members.front()];
    if (entry.recent == nullptr || entry.rate != example.rate || entry.speed != example.speed) {
      entry.recent = MemoPlan(example, guest_class);
      entry.rate = example.rate;
      entry.speed = example.speed;
    }
    entry.round = offer_round_;
    entry.plan = entry.recent;
    entry.possible = entry.plan->possible;
    entry.guest_spb = entry.plan->guest_spb;
    return entry;
  }

  // PlanGuest's result, computed once: it depends only on the host's class, mode, used workers,
  // rate and speed and the guest's class.
  const Plan* MemoPlan(const HostState& host, int guest_class) {
    const PlanKey key{host.job_class,    static_cast<int>(host.mode),
                      host.used_workers, guest_class,
                      host.rate,         host.speed};
    auto it = plan_memo_.find(key);
    if (it == plan_memo_.end())
      it = plan_memo_
               .emplace(key,
                        planner_.PlanGuest(host, classes_[host.job_class], classes_[guest_class]))
               .first;
    return &it->second;
  }

  // Offers every job not placed, least served first, to the hosts.
  void AddGuests(const std::vector<PolicyJob>& jobs, const std::vector<char>& placed,
                 std::vector<Placement>* placements, std::vector<HostState>* hosts) {
    if (!use_packing_ && !use_spb_) return;
    bool any_host = false;
    for (HostState& host : *hosts) {
      host.job_class = ClassOf(jobs[host.job]);
      any_host |= classes_[host.job_class].colocatable;
    }
    if (!any_host) return;
    std::vector<size_t>& waiting = waiting_;
    std::vector<int>& waiting_class = waiting_class_;
    waiting.clear();
    waiting_class.clear();
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (placed[j]) continue;
      const int c = ClassOf(jobs[j]);
      if (classes_[c].colocatable) waiting.push_back(j), waiting_class.push_back(c);
    }
    if (waiting.empty()) return;
    double longest_remaining_s = 0;
    for (const PolicyJob& job : jobs) {
      longest_remaining_s = std::max(longest_remaining_s, job.remaining_isolated_s);
    }
    if (reference_scan_) {
      ReferenceOffer offer;
      offer.longest_remaining_s = longest_remaining_s;
      for (size_t p = 0; p < hosts->size(); ++p) {
        const HostState& h = (*hosts)[p];
        if (classes_[h.job_class].colocatable) {
          offer.open_hosts += offer.groups[GroupKey(h)].insert(p).second;
        }
      }
      std::vector<double> served(waiting.size());
      for (size_t w = 0; w < waiting.size(); ++w) served[w] = ServedShare(jobs[waiting[w]]);
      PrefixOrder least_served(static_cast<int>(waiting.size()), [&](int a, int b) {
        const PolicyJob& ja = jobs[waiting[a]];
        const PolicyJob& jb = jobs[waiting[b]];
        if (ServedBefore(served[a], ja, served[b], jb)) return true;
        if (ServedBefore(served[b], jb, served[a], ja)) return false;
        return a < b;
      });
      for (int k = 0; k < least_served.size() && offer.open_hosts > 0; ++k) {
        const int w = least_served.At(k);
        int best_host = -1;
        Plan best_plan;
        if (ReferenceFindHost(jobs, *hosts, waiting[w], waiting_class[w], &offer, &best_host,
                              &best_plan)) {
          ReferencePlace(jobs, waiting[w], best_host, best_plan, placements, hosts, &offer);
        }
      }
      return;
    }
    // The waiting jobs least served first (LeastServedOrder's order: ServedBefore's keys, then
    // the index); the keys copied side by side for the sort.
    std::vector<ServedKey>& served = served_;
    served.resize(waiting.size());
    for (size_t w = 0; w < waiting.size(); ++w) {
      const PolicyJob& job = jobs[waiting[w]];
      served[w] = {ServedShare(job), job.arrival_s, job.id};
    }
    auto served_before = [&](int a, int b) {
      const ServedKey& ka = served[a];
      const ServedKey& kb = served[b];
      if (ka.share != kb.share) return ka.share < kb.share;
      if (ka.arrival_s != kb.arrival_s) return ka.arrival_s < kb.arrival_s;
      if (ka.id != kb.id) return ka.id < kb.id;
      return a < b;
    };
    if (plan_memo_.size() > (1u << 20)) {  // a bound on memory; forget every plan
      plan_memo_.clear();
      for (Group& group : group_pool_) group.plans.clear();
    }
    Offer& offer = offer_;
    offer.order.clear();
    offer.others.clear();
    offer.open_hosts = 0;
    offer.longest_remaining_s = longest_remaining_s;
    ++offer_round_;
    for (size_t p = 0; p < hosts->size(); ++p) {
      const HostState& h = (*hosts)[p];
      if (classes_[h.job_class].colocatable) {
        GroupOf(GroupKey(h), &offer).members.push_back(p);  // p ascending: stays sorted
        ++offer.open_hosts;
      }
    }
    // A guest's search depends on the guest only through its class and whether it has warmed
    // up (its key), so a key that found no host keeps finding none while hosts only leave the
    // groups: its search visited every non-empty group, so every plan it would read is cached,
    // and a group losing members cannot gain an admissible one. A host entering a group (an SPB
    // host taking a further guest) may change that: every key is searched again (a new epoch).
    // Once every key with guests still to come has failed in the current epoch, the rest of the
    // order would place nobody and change nothing: stop.
    const int num_keys = 2 * static_cast<int>(classes_.size());
    std::vector<int>& key_of = key_of_;
    key_of.resize(waiting.size());
    key_left_.assign(num_keys, 0);
    key_failed_in_.assign(num_keys, -1);
    viable_in_.assign(num_keys, -1);
    if (viable_.size() < static_cast<size_t>(num_keys)) viable_.resize(num_keys);
    for (size_t w = 0; w < waiting.size(); ++w) {
      key_of[w] = 2 * waiting_class[w] + (WarmedUp(jobs[waiting[w]]) ? 1 : 0);
      ++key_left_[key_of[w]];
    }
    auto keys_with_guests = [&] {
      int n = 0;
      for (int left : key_left_) n += left > 0;
      return n;
    };
    int live_keys = keys_with_guests();  // keys with guests to come, not failed in this epoch
    int epoch = 0;
    const std::vector<int>& least_served = LeastServedFromLastRound(served_before);
    for (size_t k = 0; k < least_served.size() && offer.open_hosts > 0 && live_keys > 0; ++k) {
      const int w = least_served[k];
      const int key = key_of[w];
      --key_left_[key];
      if (key_failed_in_[key] == epoch) continue;
      int best_host = -1;
      Plan best_plan;
      std::vector<int>* viable = &viable_[key];
      const bool viable_known = viable_in_[key] == epoch;
      if (!viable_known) viable_in_[key] = epoch, viable->clear();
      if (!FindHost(jobs, *hosts, waiting[w], waiting_class[w], &offer, viable_known, viable,
                    &best_host, &best_plan)) {
        key_failed_in_[key] = epoch;
        --live_keys;
        continue;
      }
      if (Place(jobs, waiting[w], best_host, best_plan, placements, hosts, &offer)) {
        ++epoch;
        live_keys = keys_with_guests();
      } else if (key_left_[key] == 0) {
        --live_keys;
      }
    }
  }

  // The waiting jobs (indices into waiting_ and served_, whose keys carry the ids) in the strict
  // total order `before`, sorted from last round's order (WarmSort): the jobs that waited then
  // and did not run keep their relative order nearly (their served shares all drift down
  // slowly), the others (who ran, new arrivals, last round's hosts) are sorted apart and merged
  // in. The result does not depend on the previous order, only the cost does.
  template <typename Before>
  const std::vector<int>& LeastServedFromLastRound(const Before& before) {
    const size_t n = served_.size();  // the waiting jobs' keys, with their ids
    warm_negative_.clear();
    for (size_t w = 0; w < n; ++w) {
      const int id = served_[w].id;
      if (id < 0) {
        warm_negative_[id] = static_cast<int>(w);
        continue;
      }
      if (static_cast<size_t>(id) >= warm_slot_.size()) warm_slot_.resize(id + 1, -1);
      warm_slot_[id] = static_cast<int>(w);
    }
    warm_taken_.assign(n, 0);
    warm_kept_.clear();
    warm_moved_.clear();
    for (int id : last_order_ids_) {
      int w = -1;
      if (id < 0) {
        auto it = warm_negative_.find(id);
        if (it != warm_negative_.end()) w = it->second;
      } else if (static_cast<size_t>(id) < warm_slot_.size()) {
        w = warm_slot_[id];
      }
      if (w < 0 || LastRate(id) != 0) continue;
      warm_taken_[w] = 1;
      warm_kept_.push_back(w);
    }
    for (size_t w = 0; w < n; ++w) {
      if (!warm_taken_[w]) warm_moved_.push_back(static_cast<int>(w));
      const int id = served_[w].id;
      if (id >= 0) warm_slot_[id] = -1;
    }
    WarmSort(&warm_kept_, &warm_moved_, before, &order_);
    last_order_ids_.resize(order_.size());
    for (size_t k = 0; k < order_.size(); ++k) last_order_ids_[k] = served_[order_[k]].id;
    return order_;
  }

  // The host for guest `j` of class `guest_class`: across groups the largest gain, then the
  // lowest host index, each group offering its first host the thresholds admit. False if none.
  // `viable`: the groups, in order, that can take a guest of j's key (non-empty, a possible
  // plan, j warmed up if the plan needs it); when not `viable_known`, they are searched all and
  // recorded. Within an epoch groups only lose hosts (and a group's plan is fixed for the
  // round), so the record stays a superset of the groups a later search would not skip.
  bool FindHost(const std::vector<PolicyJob>& jobs, const std::vector<HostState>& hosts, size_t j,
                int guest_class, Offer* offer, bool viable_known, std::vector<int>* viable,
                int* best_host_out, Plan* best_plan) {
    int best_host = -1;
    double best_gain = 0;
    const bool warmed_up = WarmedUp(jobs[j]);
    auto visit = [&](int g) {
      Group& group = group_pool_[g];
      if (group.members.empty()) return;
      const GroupPlan& entry = GroupPlanFor(&group, guest_class, hosts);
      if (!entry.possible || (entry.guest_spb && !warmed_up)) return;
      if (!viable_known) viable->push_back(g);
      const Plan& plan = *entry.plan;
      ScanGroup(jobs, hosts, group.members, j, plan, offer->longest_remaining_s, &best_host,
                &best_gain, best_plan);
    };
    if (viable_known) {
      for (int g : *viable) visit(g);
    } else {
      // The round's groups in key order, less the groups of lone hosts whose plan for this
      // class is impossible: every host of such a group has the same state (alone, rate and
      // speed 1), so its plan is the same in every round, and the group would be skipped.
      const std::vector<int>& alone = AloneGroupsWithPlans(guest_class);
      auto a = alone.begin();
      for (int g : offer->others) {
        for (; a != alone.end() && group_pool_[*a].key < group_pool_[g].key; ++a) {
          if (group_pool_[*a].round == offer_round_) visit(*a);
        }
        visit(g);
      }
      for (; a != alone.end(); ++a) {
        if (group_pool_[*a].round == offer_round_) visit(*a);
      }
    }
    *best_host_out = best_host;
    return best_host >= 0;
  }

  // The groups of lone hosts (any round's) whose plan for a guest of `guest_class` is possible,
  // in key order: PlanGuest for a lone host, rate and speed 1, of the group's class.
  const std::vector<int>& AloneGroupsWithPlans(int guest_class) {
    if (alone_plans_.size() <= static_cast<size_t>(guest_class)) {
      alone_plans_.resize(guest_class + 1);
      alone_checked_.resize(guest_class + 1, 0);
    }
    std::vector<int>& fits = alone_plans_[guest_class];
    size_t& checked = alone_checked_[guest_class];
    for (; checked < group_pool_.size(); ++checked) {
      const Group& group = group_pool_[checked];
      if (std::get<1>(group.key) != static_cast<int>(HostMode::kAlone)) continue;
      HostState lone;
      lone.job_class = std::get<0>(group.key);
      lone.rate = classes_[lone.job_class].alone_rate;
      lone.speed = classes_[lone.job_class].alone_speed;
      if (classes_[lone.job_class].alone_frozen) lone.bytes = classes_[lone.job_class].phase->bytes;
      if (!MemoPlan(lone, guest_class)->possible) continue;
      auto at = std::lower_bound(
          fits.begin(), fits.end(), group.key,
          [&](int a, const std::tuple<int, int, int>& k) { return group_pool_[a].key < k; });
      fits.insert(at, static_cast<int>(checked));
    }
    return fits;
  }

  // Puts guest `j` on host `best_host` with `plan`. True if the host entered a group (an SPB
  // host with room for a further guest).
  bool Place(const std::vector<PolicyJob>& jobs, size_t j, int best_host, const Plan& plan,
             std::vector<Placement>* placements, std::vector<HostState>* hosts, Offer* offer) {
    HostState& host = (*hosts)[best_host];
    std::vector<size_t>& left = GroupOf(GroupKey(host), offer).members;
    auto at = std::lower_bound(left.begin(), left.end(), static_cast<size_t>(best_host));
    if (at != left.end() && *at == static_cast<size_t>(best_host)) {
      left.erase(at);
      --offer->open_hosts;
    }
    if (!PutGuest(jobs, j, best_host, plan, placements, &host)) return false;
    std::vector<size_t>& entered = GroupOf(GroupKey(host), offer).members;
    at = std::lower_bound(entered.begin(), entered.end(), static_cast<size_t>(best_host));
    if (at != entered.end() && *at == static_cast<size_t>(best_host)) return false;
    entered.insert(at, best_host);
    ++offer->open_hosts;
    return true;
  }

  // Applies `plan` to `host` (host `best_host`) and records guest `j` in its placement. True if
  // the host can take a further guest (an SPB host under its guest and worker limits).
  bool PutGuest(const std::vector<PolicyJob>& jobs, size_t j, int best_host, const Plan& plan,
                std::vector<Placement>* placements, HostState* host_out) const {
    HostState& host = *host_out;
    host.mode = plan.mode;
    host.rate = plan.host_rate;
    host.speed = plan.host_speed;
    host.bytes = plan.host_bytes;
    Placement& placement = (*placements)[best_host];
    placement.rate = host.rate;
    placement.guests.push_back({jobs[j].id, plan.guest_rate});
    RecordSpbRound(host, plan, &placement);
    if (plan.mode == HostMode::kSpb || plan.mode == HostMode::kFreed) {
      host.used_workers += jobs[j].scale_factor;
      if (static_cast<int>(placement.guests.size()) < tunables_.max_guests &&
          host.used_workers < jobs[host.job].scale_factor) {
        return true;
      }
    }
    return false;
  }

  // The SPB plans of a host and its newest guest after `plan` (summary.json's "spb" object).
  void RecordSpbRound(const HostState& host, const Plan& plan, Placement* placement) const {
    const JobClass& h = classes_[host.job_class];
    SpbRound& guest = placement->guests.back().spb;
    auto mean_busy = [](const SpbOption& o) {
      double sum = 0;
      for (double b : o.worker_busy) sum += b;
      return o.worker_busy.empty() ? 1.0 : sum / o.worker_busy.size();
    };
    if (plan.mode == HostMode::kFreed) {  // the host runs its frozen phase
      placement->spb = {SpbRoundPlan::kAdaptive, h.phase->compute, false};
      guest.in_freed_capacity = true;
    } else if (plan.mode == HostMode::kSpb) {
      placement->spb = {SpbRoundPlan::kStaircase, mean_busy(*h.staircase), false};
      guest.in_freed_capacity = true;
    } else if (plan.host_spb) {  // interleaved staircase pair
      placement->spb = {SpbRoundPlan::kStaircase, mean_busy(*h.staircase), false};
      guest.plan = SpbRoundPlan::kStaircase;
    } else {  // packing: both at full backprop
      placement->spb = SpbRound();
    }
  }

  // The reference search (FindHost's contract) and placement (Place's).
  bool ReferenceFindHost(const std::vector<PolicyJob>& jobs, const std::vector<HostState>& hosts,
                         size_t j, int guest_class, ReferenceOffer* offer, int* best_host_out,
                         Plan* best_plan) const {
    int best_host = -1;
    double best_gain = 0;
    for (const auto& [key, members] : offer->groups) {
      if (members.empty()) continue;
      const auto plan_key =
          std::make_tuple(std::get<0>(key), std::get<1>(key), std::get<2>(key), guest_class);
      auto cached = offer->plans.find(plan_key);
      if (cached == offer->plans.end()) {
        const HostState& example = hosts[*members.begin()];
        cached = offer->plans
                     .emplace(plan_key, planner_.PlanGuest(example, classes_[example.job_class],
                                                           classes_[guest_class]))
                     .first;
      }
      const Plan& plan = cached->second;
      if (!plan.possible || (plan.guest_spb && !WarmedUp(jobs[j]))) continue;
      ScanGroup(jobs, hosts, members, j, plan, offer->longest_remaining_s, &best_host, &best_gain,
                best_plan);
    }
    *best_host_out = best_host;
    return best_host >= 0;
  }

  bool ReferencePlace(const std::vector<PolicyJob>& jobs, size_t j, int best_host, const Plan& plan,
                      std::vector<Placement>* placements, std::vector<HostState>* hosts,
                      ReferenceOffer* offer) {
    HostState& host = (*hosts)[best_host];
    offer->open_hosts -= offer->groups[GroupKey(host)].erase(best_host);
    if (!PutGuest(jobs, j, best_host, plan, placements, &host)) return false;
    const bool entered = offer->groups[GroupKey(host)].insert(best_host).second;
    offer->open_hosts += entered;
    return entered;
  }

  // Goodput the placement adds, in GPUs' worth of isolated full-backprop training.
  // Offers guest `j` the group's first host the thresholds admit (hosts differ only in their own
  // remaining time and progress; `members` ascending): it becomes the best so far if its gain is
  // larger, or equal with a lower host index. Stops early at a host whose gain cannot win.
  template <typename Members>
  void ScanGroup(const std::vector<PolicyJob>& jobs, const std::vector<HostState>& hosts,
                 const Members& members, size_t j, const Plan& plan, double longest_remaining_s,
                 int* best_host_io, double* best_gain_io, Plan* best_plan) const {
    const int best_host = *best_host_io;
    const double best_gain = *best_gain_io;
    for (size_t p : members) {
      if (best_host >= 0 && static_cast<int>(p) > best_host && best_gain >= 0 &&
          Gain(jobs[hosts[p].job], hosts[p], jobs[j], plan) < best_gain) {
        return;
      }
      const HostState& host = hosts[p];
      if (!Admissible(jobs[host.job], host, plan, longest_remaining_s)) continue;
      const double gain = Gain(jobs[host.job], host, jobs[j], plan);
      if (best_host < 0 || gain > best_gain ||
          (gain == best_gain && static_cast<int>(p) < best_host)) {
        *best_host_io = static_cast<int>(p);
        *best_gain_io = gain;
        *best_plan = plan;
      }
      return;
    }
  }

  static double Gain(const PolicyJob& host_job, const HostState& host, const PolicyJob& guest,
                     const Plan& plan) {
    return (plan.host_rate - host.rate) * host_job.scale_factor +
           plan.guest_rate * guest.scale_factor;
  }

  // The thresholds that depend on the host itself, not only its class and state.
  bool Admissible(const PolicyJob& host_job, const HostState& host, const Plan& plan,
                  double longest_remaining_s) const {
    if (plan.host_rate < tunables_.min_host_rate) return false;
    if (plan.host_spb && host.mode == HostMode::kAlone && !WarmedUp(host_job)) return false;
    // Slowing the host must not make it the job that sets the makespan.
    if (tunables_.critical_path_guard && plan.host_rate < host.rate &&
        host_job.remaining_isolated_s / plan.host_rate > longest_remaining_s) {
      return false;
    }
    return true;
  }

  bool WarmedUp(const PolicyJob& job) const {
    if (tunables_.spb_warmup <= 0) return true;
    return job.total_steps > 0 && job.steps_run >= tunables_.spb_warmup * job.total_steps;
  }

  std::string name_;
  PolicyOptions options_;
  ColocationTunables tunables_;
  const ThroughputTable* pairs_;  // co-location entries and their isolated throughputs
  bool use_packing_;
  bool use_spb_;
  const SpbPhaseModel* phases_;  // null: no phase plans (packing, or none given)
  bool reference_scan_;  // every guest searches the groups (the equivalence tests' reference)
  GuestPlanner planner_;
  std::unique_ptr<Policy> base_;  // null: least served first
  // Job id -> rate in the last planned round (0: not run): by id, a map for negative ids.
  std::vector<double> last_rate_;
  std::vector<int> last_rate_ids_;  // the ids set in last_rate_
  std::unordered_map<int, double> last_rate_negative_;
  std::vector<JobClass> classes_;
  std::map<std::tuple<std::string, int, int, double, int>, int> class_index_;
  // Job id -> (batch, class): by id (trace ids are dense), a map for negative ids.
  std::vector<std::pair<int, int>> class_of_;
  std::unordered_map<int, std::pair<int, int>> class_of_negative_;
  std::vector<std::unique_ptr<PolicyJob>> example_jobs_;
  std::vector<long long> view_index_;  // PlanPlacements' scratch: view index by id, -1 if none
  // AddGuests' scratch, reused across rounds.
  Offer offer_;
  std::vector<Group> group_pool_;              // one per key seen
  std::vector<std::vector<int>> alone_plans_;  // by guest class: AloneGroupsWithPlans'
  std::vector<size_t> alone_checked_;          // by guest class: group_pool_ entries looked at
  std::map<std::tuple<int, int, int>, int> group_index_;      // key -> group_pool_ index
  long long offer_round_ = 0;                                 // AddGuests calls so far
  std::unordered_map<PlanKey, Plan, PlanKeyHash> plan_memo_;  // PlanGuest's results
  std::vector<size_t> waiting_;
  std::vector<int> waiting_class_;
  struct ServedKey {
    double share, arrival_s;
    int id;
  };
  std::vector<ServedKey> served_;
  std::vector<int> key_of_, key_left_, key_failed_in_;
  std::vector<int> order_;           // this round's least-served order of waiting_
  std::vector<int> last_order_ids_;  // last round's, as job ids
  std::vector<int> warm_slot_;       // LeastServedFromLastRound's scratch: by id
  std::unordered_map<int, int> warm_negative_;
  std::vector<char> warm_taken_;
  std::vector<int> warm_kept_, warm_moved_;
  std::vector<int> viable_in_;            // by key: the epoch its viable_ entry belongs to
  std::vector<std::vector<int>> viable_;  // by key: groups that can take its guests
};

}  // namespace

std::unique_ptr<Policy> MakeJigsawPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("jigsaw", options, /*use_packing=*/true,
                                        /*use_spb=*/true);
}

std::unique_ptr<Policy> MakePackingPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("packing", options, /*use_packing=*/true,
                                        /*use_spb=*/false);
}

std::unique_ptr<Policy> MakeSpbOnlyPolicy(const PolicyOptions& options) {
  return std::make_unique<JigsawPolicy>("spb_only", options, /*use_packing=*/false,
                                        /*use_spb=*/true);
}

std::unique_ptr<Policy> MakeReferenceScanColocationPolicy(const std::string& name,
                                                          const PolicyOptions& options) {
  if (name != "jigsaw" && name != "packing" && name != "spb_only") {
    throw UsageError("no co-locating policy named '" + name + "'");
  }
  return std::make_unique<JigsawPolicy>(name, options, /*use_packing=*/name != "spb_only",
                                        /*use_spb=*/name != "packing", /*reference_scan=*/true);
}

}  // namespace jigsaw
