#include "runtime/spb_worker.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "core/output.h"
#include "runtime/block_state.h"
#include "runtime/gradient_exchange.h"
#include "runtime/host_staging.h"
#include "runtime/memory_tracker.h"
#include "runtime/runtime.h"
#include "runtime/train_worker.h"

namespace jigsaw {
namespace {

BlockModel TinyMlp() {
  torch::manual_seed(3);
  return MakeModel("mlp", 1, 6, 6, 4);
}

// Private generators: the tests call these from several threads at once.
torch::Tensor Input(int seed) {
  return torch::randn({8, 1, 6, 6}, at::make_generator<at::CPUGeneratorImpl>(seed));
}

torch::Tensor Labels(int seed) {
  return torch::randint(0, 4, {8}, at::make_generator<at::CPUGeneratorImpl>(seed + 100),
                        torch::kInt64);
}

// Runs `work(rank, groups)` on `world` threads sharing one in-process store.
template <typename Work>
void RunOnThreads(int world, const std::vector<std::vector<int>>& groups, Work work) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(world);
  for (int rank = 0; rank < world; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        GlooGroups gloo(store, rank, groups, "127.0.0.1", std::chrono::seconds(20));
        work(rank, gloo);
      } catch (const std::exception& e) {
        errors[rank] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

TEST(RuntimeSpbWorker, ModelsAreBlockSequences) {
  for (const char* name : {"mlp", "lenet", "resnet"}) {
    BlockModel model = MakeModel(name, 1, 28, 28, 10);
    EXPECT_GE(model->num_blocks(), 4) << name;
    EXPECT_EQ(model->forward(torch::zeros({2, 1, 28, 28})).sizes(), (torch::IntArrayRef{2, 10}));
  }
  // The CIFAR ResNets: stem + one block per basic block + head, He et al.'s sizes.
  for (auto [name, blocks, parameters] :
       {std::tuple{"resnet20", 11, 269722}, std::tuple{"resnet18", 10, 11173962}}) {
    BlockModel model = MakeModel(name, 3, 32, 32, 10);
    EXPECT_EQ(model->num_blocks(), blocks) << name;
    int64_t count = 0;
    for (const torch::Tensor& p : model->parameters()) count += p.numel();
    EXPECT_EQ(count, parameters) << name;
    model->eval();
    EXPECT_EQ(model->forward(torch::zeros({2, 3, 32, 32})).sizes(), (torch::IntArrayRef{2, 10}));
  }
}

TEST(RuntimeSpbWorker, FrozenBlocksGetNoGradientAndKeepNoGraph) {
  BlockModel model = TinyMlp();
  const int blocks = model->num_blocks();
  SpbStepResult step = ComputeSpbGradients(model, Input(1), Labels(1), 2);
  EXPECT_GT(step.loss, 0);
  for (int b = 0; b < blocks; ++b) {
    for (const torch::Tensor& p : model->block(b)->parameters()) {
      EXPECT_EQ(p.grad().defined(), b >= blocks - 2) << "block " << b;
    }
  }
  // The activation entering the first trainable block has no autograd history, so nothing of
  // the frozen prefix is kept alive by the graph.
  torch::Tensor x = Input(1);
  {
    torch::NoGradGuard no_grad;
    for (int b = 0; b < blocks - 2; ++b) x = model->block(b)->forward(x);
  }
  EXPECT_FALSE(x.requires_grad());
  EXPECT_TRUE(SpbForward(model, Input(1), 2).requires_grad());
  EXPECT_FALSE(SpbForward(model, Input(1), 0).requires_grad());
}

TEST(RuntimeSpbWorker, FrozenPrefixReallySavesActivationMemory) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "the retained bytes come from glibc's mallinfo2, which does not see the "
                  "AddressSanitizer heap (scripts/sanitize.sh)";
#endif
  torch::manual_seed(5);
  BlockModel model = MakeModel("lenet", 1, 28, 28, 10);
  torch::Tensor input = torch::randn({64, 1, 28, 28});
  torch::Tensor labels = torch::randint(0, 10, {64}, torch::kInt64);
  ComputeSpbGradients(model, input, labels, 5);  // warm-up
  const double full = ComputeSpbGradients(model, input, labels, 5).retained_bytes;
  const double top = ComputeSpbGradients(model, input, labels, 2).retained_bytes;
  // Full depth keeps the conv activations (~1.5 MB at batch 64); depth 2 only small FC ones.
  EXPECT_GT(full, 1e6);
  EXPECT_LT(top, full / 5);
}

// Peak tensor bytes of one step (forward and backward) above what was live before it.
struct MeasuredStep {
  double peak_bytes = 0;
  double loss = 0;
  std::vector<torch::Tensor> gradients;
};

MeasuredStep MeasureStep(BlockModel& model, const torch::Tensor& input, const torch::Tensor& labels,
                         int depth, int frozen_chunk) {
  ClearGradients(model);
  ResetPeakTensorBytes();
  const int64_t before = TensorBytes();
  MeasuredStep measured;
  measured.loss = RunSpbStep(model, input, labels, depth, nullptr, frozen_chunk).loss;
  measured.peak_bytes = static_cast<double>(PeakTensorBytes() - before);
  for (const torch::Tensor& p : model->parameters()) {
    measured.gradients.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  }
  return measured;
}

TEST(RuntimeSpbWorker, FrozenPrefixInMicroBatchesHasALowerPeakAndTheSameGradients) {
  InstallTensorMemoryTracker();
  torch::manual_seed(5);
  BlockModel model = MakeModel("lenet", 1, 28, 28, 10);
  torch::Tensor input = torch::randn({32, 1, 28, 28}, at::make_generator<at::CPUGeneratorImpl>(1));
  torch::Tensor labels =
      torch::randint(0, 10, {32}, at::make_generator<at::CPUGeneratorImpl>(2), torch::kInt64);
  const MeasuredStep full = MeasureStep(model, input, labels, 5, 0);
  const MeasuredStep whole = MeasureStep(model, input, labels, 2, 0);
  const MeasuredStep chunked = MeasureStep(model, input, labels, 2, 8);
  EXPECT_NEAR(chunked.loss, whole.loss, 1e-5);
  for (size_t i = 0; i < whole.gradients.size(); ++i) {
    ASSERT_EQ(whole.gradients[i].defined(), chunked.gradients[i].defined()) << i;
    if (whole.gradients[i].defined()) {
      EXPECT_TRUE(torch::allclose(whole.gradients[i], chunked.gradients[i], 1e-4, 1e-6)) << i;
    }
  }
  // The peak of a step with the two convolutions frozen is their forward workspace (im2col for
  // the whole batch) unless the frozen prefix runs in micro-batches. How large that workspace is
  // next to full backprop's peak depends on the CPU's convolution kernels (0.51x of full's peak on
  // an AMD EPYC with Debian's LibTorch 1.13, above 0.8x elsewhere), so only the order is checked.
  EXPECT_LE(whole.peak_bytes, full.peak_bytes);
  EXPECT_LT(chunked.peak_bytes, 0.5 * whole.peak_bytes);
  EXPECT_GT(chunked.peak_bytes, 0);
}

TEST(RuntimeSpbWorker, FrozenPrefixWithBatchNormIsNotSplit) {
  torch::manual_seed(6);
  BlockModel model = MakeModel("resnet20", 3, 8, 8, 10);
  torch::Tensor input = torch::randn({8, 3, 8, 8}, at::make_generator<at::CPUGeneratorImpl>(3));
  torch::Tensor labels =
      torch::randint(0, 10, {8}, at::make_generator<at::CPUGeneratorImpl>(4), torch::kInt64);
  const int depth = model->num_blocks() - 3;
  const MeasuredStep whole = MeasureStep(model, input, labels, depth, 0);
  const MeasuredStep chunked = MeasureStep(model, input, labels, depth, 2);
  // Batch statistics over the whole batch: bitwise the same step.
  EXPECT_EQ(chunked.loss, whole.loss);
  for (size_t i = 0; i < whole.gradients.size(); ++i) {
    if (whole.gradients[i].defined())
      EXPECT_TRUE(torch::equal(whole.gradients[i], chunked.gradients[i])) << i;
  }
}

TEST(RuntimeSpbWorker, OtherThreadsAllocationsCountApartOnceATrainingThreadIsNamed) {
  InstallTensorMemoryTracker();
  CountOnlyThisThread();
  ResetPeakTensorBytes();
  const int64_t before = TensorBytes();
  const int64_t separate_before = SeparateTensorBytes();
  torch::Tensor mine = torch::empty({1 << 16}, torch::kFloat32);
  torch::Tensor theirs;
  std::thread other([&] { theirs = torch::empty({1 << 18}, torch::kFloat32); });
  other.join();
  EXPECT_EQ(TensorBytes() - before, int64_t{1 << 16} * 4);
  EXPECT_EQ(SeparateTensorBytes() - separate_before, int64_t{1 << 18} * 4);
  theirs = torch::Tensor();
  EXPECT_EQ(SeparateTensorBytes(), separate_before);
}

TEST(RuntimeSpbWorker, PartialGradientsEqualFullBackpropOnTheTrainedBlocks) {
  BlockModel partial = TinyMlp();
  BlockModel full = TinyMlp();
  ComputeSpbGradients(partial, Input(1), Labels(1), 2);
  ComputeSpbGradients(full, Input(1), Labels(1), full->num_blocks());
  auto p = partial->parameters();
  auto f = full->parameters();
  size_t compared = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p[i].grad().defined()) continue;
    EXPECT_TRUE(torch::allclose(p[i].grad(), f[i].grad()));
    ++compared;
  }
  EXPECT_EQ(compared, 4u);  // weight and bias of the last two blocks
}

// Two workers, depths {2, 4} on a 4-block MLP: blocks 2-3 are averaged over both workers,
// blocks 0-1 come from worker 1 alone and are broadcast to worker 0.
TEST(RuntimeSpbWorker, TwoWorkerGradientsAreAveragedOverContributors) {
  const std::vector<int> depths = {2, 4};
  BlockModel reference[2] = {TinyMlp(), TinyMlp()};
  for (int k = 0; k < 2; ++k) {
    ComputeSpbGradients(reference[k], Input(k), Labels(k), reference[k]->num_blocks());
  }
  BlockModel models[2] = {TinyMlp(), TinyMlp()};
  const int blocks = models[0]->num_blocks();
  std::vector<Collective> collectives = PlanCollectives(BlockContributors(depths, blocks), 2);
  double bytes[2] = {0, 0};
  RunOnThreads(2, {{0, 1}}, [&](int rank, GlooGroups& groups) {
    ComputeSpbGradients(models[rank], Input(rank), Labels(rank), depths[rank]);
    bytes[rank] = ExchangeGradients(models[rank], collectives, groups);
  });
  for (int b = 0; b < blocks; ++b) {
    auto r0 = reference[0]->block(b)->parameters();
    auto r1 = reference[1]->block(b)->parameters();
    for (int k = 0; k < 2; ++k) {
      auto got = models[k]->block(b)->parameters();
      for (size_t i = 0; i < got.size(); ++i) {
        torch::Tensor expected = b >= 2 ? (r0[i].grad() + r1[i].grad()) / 2 : r1[i].grad();
        ASSERT_TRUE(got[i].grad().defined()) << "worker " << k << " block " << b;
        EXPECT_TRUE(torch::allclose(got[i].grad(), expected, 1e-5, 1e-6))
            << "worker " << k << " block " << b;
      }
    }
  }
  std::vector<int64_t> sizes = BlockParameterBytes(models[0]);
  const double top = static_cast<double>(sizes[2] + sizes[3]);
  const double bottom = static_cast<double>(sizes[0] + sizes[1]);
  EXPECT_DOUBLE_EQ(bytes[0], top + bottom / 2);
  EXPECT_DOUBLE_EQ(bytes[1], top + bottom / 2);
}

// Three workers, rotating plan: over a whole period (several sub-groups, broadcasts from
// different roots) every worker ends each iteration with the contributors' average.
TEST(RuntimeSpbWorker, RotatingPlanKeepsEveryReplicaOnTheContributorAverage) {
  const int world = 3;
  const SpbPlan plan = ParseSpbPlan("rotating");
  const int blocks = TinyMlp()->num_blocks();
  std::vector<BlockModel> models;
  for (int k = 0; k < world; ++k) models.push_back(TinyMlp());
  // got[t][k][i]: gradient of parameter i on worker k after iteration t.
  std::vector<std::vector<std::vector<torch::Tensor>>> got(
      world, std::vector<std::vector<torch::Tensor>>(world));
  RunOnThreads(world, PlanGroups(plan, blocks, world), [&](int rank, GlooGroups& groups) {
    for (int t = 0; t < world; ++t) {
      std::vector<int> depths = WorkerDepths(plan, blocks, world, t);
      ComputeSpbGradients(models[rank], Input(rank + 10 * t), Labels(rank + 10 * t), depths[rank]);
      ExchangeGradients(models[rank], PlanCollectives(BlockContributors(depths, blocks), world),
                        groups);
      for (const torch::Tensor& p : models[rank]->parameters()) {
        got[t][rank].push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
      }
    }
  });
  for (int t = 0; t < world; ++t) {
    std::vector<std::vector<int>> contributors =
        BlockContributors(WorkerDepths(plan, blocks, world, t), blocks);
    std::vector<std::vector<torch::Tensor>> reference(world);
    for (int k = 0; k < world; ++k) {
      BlockModel full = TinyMlp();
      ComputeSpbGradients(full, Input(k + 10 * t), Labels(k + 10 * t), blocks);
      for (const torch::Tensor& p : full->parameters()) reference[k].push_back(p.grad());
    }
    size_t i = 0;
    for (int b = 0; b < blocks; ++b) {
      for (size_t j = 0; j < TinyMlp()->block(b)->parameters().size(); ++j, ++i) {
        torch::Tensor expected = torch::zeros_like(reference[0][i]);
        for (int k : contributors[b]) expected += reference[k][i];
        expected /= static_cast<double>(contributors[b].size());
        for (int k = 0; k < world; ++k) {
          ASSERT_TRUE(got[t][k][i].defined()) << "iteration " << t << " worker " << k;
          EXPECT_TRUE(torch::allclose(got[t][k][i], expected, 1e-5, 1e-6))
              << "iteration " << t << " worker " << k << " block " << b;
        }
      }
    }
  }
}

// One step of the balanced exchange on two threads with `depths`: got[rank] = that rank's
// exchanged gradient per block.
void ExchangeOnTwoThreads(const std::vector<int>& depths, SpbScale scale, bool overlap,
                          bool through_host, std::vector<torch::Tensor> got[2]) {
  BlockModel models[2] = {TinyMlp(), TinyMlp()};
  const int blocks = models[0]->num_blocks();
  const std::vector<std::vector<int>> contributors = BlockContributors(depths, blocks);
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::string errors[2];
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        GlooGroups a2a(store, rank, {{0, 1}}, "127.0.0.1", std::chrono::seconds(20), "a2a");
        GlooGroups gather(store, rank, {{0, 1}}, "127.0.0.1", std::chrono::seconds(20), "ag");
        BalancedGradientExchange exchange(a2a.Find({0, 1}), gather.Find({0, 1}), rank, 2,
                                          HostStaging(through_host));
        BlockTrainingState state(models[rank], 0.9, 0);
        state.SetActiveBlocks(std::vector<bool>(blocks, true));
        state.ZeroGradients();
        std::vector<ExchangeBucket> buckets =
            PlanBuckets(contributors, BlockParameterBytes(models[rank]), 64);  // small cap
        std::vector<double> divisors;
        for (const ExchangeBucket& b : buckets) {
          divisors.push_back(GradientDivisor(scale, static_cast<int>(b.contributors.size()), 2));
        }
        exchange.Begin(buckets, divisors, &state);
        BlockDoneCallback done;
        if (overlap) done = [&](int b) { exchange.BlockDone(b); };
        RunSpbStep(models[rank], Input(rank), Labels(rank), depths[rank], done);
        exchange.Finish();
        for (int b = 0; b < blocks; ++b) got[rank].push_back(state.gradient(b).clone());
      } catch (const std::exception& e) {
        errors[rank] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors[0] + errors[1], "");
}

// The balanced exchange on two workers, depths {2, 4}: blocks 2-3 are summed over both workers,
// blocks 0-1 come from worker 1 alone; each scale rule divides as documented, the result is
// identical on both workers, and overlapping the exchange with backward changes nothing.
TEST(RuntimeSpbWorker, BalancedExchangeScalesEachBlockAsItsRuleSays) {
  const std::vector<int> depths = {2, 4};
  BlockModel reference[2] = {TinyMlp(), TinyMlp()};
  for (int k = 0; k < 2; ++k) {
    ComputeSpbGradients(reference[k], Input(k), Labels(k), reference[k]->num_blocks());
  }
  const int blocks = reference[0]->num_blocks();
  for (SpbScale scale : {SpbScale::kContributors, SpbScale::kWorld, SpbScale::kLr}) {
    for (bool overlap : {false, true}) {
      std::vector<torch::Tensor> got[2];
      ExchangeOnTwoThreads(depths, scale, overlap, /*through_host=*/false, got);
      ASSERT_EQ(got[0].size(), static_cast<size_t>(blocks));
      ASSERT_EQ(got[1].size(), static_cast<size_t>(blocks));
      for (int b = 0; b < blocks; ++b) {
        std::vector<torch::Tensor> r0, r1;
        for (const torch::Tensor& p : reference[0]->block(b)->parameters()) {
          r0.push_back(p.grad().reshape({-1}));
        }
        for (const torch::Tensor& p : reference[1]->block(b)->parameters()) {
          r1.push_back(p.grad().reshape({-1}));
        }
        const torch::Tensor g0 = torch::cat(r0), g1 = torch::cat(r1);
        const int s = b >= 2 ? 2 : 1;
        const torch::Tensor sum = b >= 2 ? g0 + g1 : g1;
        const torch::Tensor expected = sum / GradientDivisor(scale, s, 2);
        EXPECT_TRUE(torch::allclose(got[0][b], expected, 1e-5, 1e-6))
            << SpbScaleName(scale) << " block " << b;
        EXPECT_TRUE(torch::equal(got[0][b], got[1][b])) << "replicas differ, block " << b;
      }
    }
  }
}

// Staging every bucket through host copies (the path of a model on a GPU) gives bitwise the
// direct exchange's gradients, with and without overlap.
TEST(RuntimeSpbWorker, StagedExchangeIsBitwiseTheDirectOne) {
  for (const std::vector<int>& depths : {std::vector<int>{2, 4}, std::vector<int>{4, 4}}) {
    for (bool overlap : {false, true}) {
      std::vector<torch::Tensor> direct[2], staged[2];
      ExchangeOnTwoThreads(depths, SpbScale::kWorld, overlap, false, direct);
      ExchangeOnTwoThreads(depths, SpbScale::kWorld, overlap, true, staged);
      ASSERT_EQ(direct[0].size(), staged[0].size());
      for (int rank = 0; rank < 2; ++rank) {
        for (size_t b = 0; b < direct[rank].size(); ++b) {
          EXPECT_TRUE(torch::equal(direct[rank][b], staged[rank][b]))
              << "rank " << rank << " block " << b << " overlap " << overlap;
        }
      }
    }
  }
}

// Pack lays parts out back to back with zero padding; through host it always copies (never
// aliases a training tensor), directly it hands a lone part over as is; Unpack writes back.
TEST(RuntimeSpbWorker, HostStagingPacksCopiesAndUnpacks) {
  torch::Tensor a = torch::arange(6, torch::kFloat32).view({2, 3});
  torch::Tensor b = torch::arange(4, torch::kFloat32).view({2, 2}).t();  // not contiguous
  for (bool through_host : {false, true}) {
    const HostStaging staging(through_host);
    torch::Tensor flat = staging.Pack({a, b}, 2);
    ASSERT_EQ(flat.numel(), 12);
    EXPECT_TRUE(torch::equal(flat.narrow(0, 0, 6), a.reshape({-1})));
    EXPECT_TRUE(torch::equal(flat.narrow(0, 6, 4), b.reshape({-1})));
    EXPECT_EQ(flat.narrow(0, 10, 2).abs().sum().item<float>(), 0.0f);
    torch::Tensor lone = staging.Pack({a});
    EXPECT_EQ(lone.data_ptr() == a.data_ptr(), !through_host);
  }
  torch::Tensor x = torch::zeros({2, 3});
  torch::Tensor y = torch::zeros({4});
  HostStaging::Unpack(torch::arange(12, torch::kFloat32), {x, y});
  EXPECT_TRUE(torch::equal(x.reshape({-1}), torch::arange(6, torch::kFloat32)));
  EXPECT_TRUE(torch::equal(y, torch::arange(6, 10, torch::kFloat32)));
}

// Batch norm in a frozen prefix: the block runs without autograd but in training mode, so it
// normalises with the batch's statistics (the same function the contributors use) and keeps
// tracking running statistics; training averages those over the replicas before every
// evaluation and checkpoint (docs/runtime.md), which the replica checksum then verifies.
TEST(RuntimeSpbWorker, BatchNormInAFrozenPrefixUsesBatchStatisticsAndTracksRunningOnes) {
  torch::manual_seed(9);
  BlockModel model = MakeModel("resnet20", 3, 8, 8, 10);
  model->train();
  auto running_mean = [&] {
    for (const auto& item : model->block(0)->named_buffers()) {
      if (item.key().ends_with("running_mean")) return item.value().clone();
    }
    return torch::Tensor();
  };
  const torch::Tensor before = running_mean();
  torch::Tensor input = torch::randn({8, 3, 8, 8}) * 3 + 1;
  torch::Tensor labels = torch::randint(0, 10, {8}, torch::kInt64);
  const int blocks = model->num_blocks();
  ComputeSpbGradients(model, input, labels, 2);  // block 0 frozen
  for (const torch::Tensor& p : model->block(0)->parameters()) EXPECT_FALSE(p.grad().defined());
  EXPECT_FALSE(torch::equal(before, running_mean())) << "frozen BN stopped tracking statistics";
  // Frozen or trained, block 0 computes the same function of its input.
  torch::Tensor frozen_out, trained_out;
  {
    torch::NoGradGuard no_grad;
    frozen_out = model->block(0)->forward(input);
  }
  trained_out = model->block(0)->forward(input);
  EXPECT_TRUE(torch::allclose(frozen_out, trained_out.detach()));
  EXPECT_EQ(blocks, 11);
}

std::string TempDir(const std::string& name) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("jigsaw_runtime_" + name + "_" + std::to_string(getpid())))
                        .string();
  std::filesystem::remove_all(dir);
  return dir;
}

TrainOptions TinyTraining(const std::string& out, const std::string& plan) {
  TrainOptions options;
  options.model = "mlp";
  options.data.dataset = "synthetic";
  options.data.synthetic_train = 512;
  options.data.synthetic_test = 128;
  options.data.synthetic_size = 8;
  options.spb = plan;
  options.epochs = 2;
  options.batch = 16;
  options.max_iters_per_epoch = 16;
  options.lr = 0.05;
  options.out = out;
  options.quiet = true;
  options.timeout_s = 20;
  return options;
}

void TrainOnThreads(const TrainOptions& options, int world) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(world);
  for (int rank = 0; rank < world; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        TrainRank(options, rank, world, store, "127.0.0.1");
      } catch (const std::exception& e) {
        errors[rank] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) ASSERT_EQ(e, "");
}

Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

TEST(RuntimeTraining, TwoWorkerStaircaseLearnsAndWritesOutputs) {
  const std::string out = TempDir("staircase");
  TrainOnThreads(TinyTraining(out, "staircase"), 2);
  Json summary = ReadJson(out + "/summary.json");
  EXPECT_EQ(summary["workers"], 2);
  EXPECT_EQ(summary["epoch_test_accuracy"].size(), 2u);
  EXPECT_GT(summary["test_accuracy"].get<double>(), 0.5);  // 10 classes: chance is 0.1
  EXPECT_GT(summary["bytes_sent_per_iter"].get<double>(), 0);
  EXPECT_GT(summary["peak_rss_mb"].get<double>(), 0);
  EXPECT_EQ(summary["per_worker"].size(), 2u);
  std::ifstream csv(out + "/iterations.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 1 + 2 * 2 * 16);
  EXPECT_TRUE(std::filesystem::exists(out + "/checkpoint.pt"));
  EXPECT_FALSE(std::filesystem::exists(out + "/checkpoint.pt.tmp"));
}

TEST(RuntimeTraining, ResumeContinuesFromTheLastCheckpoint) {
  const std::string out = TempDir("resume");
  TrainOptions options = TinyTraining(out, "rotating");
  options.epochs = 1;
  TrainOnThreads(options, 2);
  options.epochs = 2;
  options.resume = true;
  TrainOnThreads(options, 2);
  Json summary = ReadJson(out + "/summary.json");
  EXPECT_EQ(summary["resumed_from_epoch"], 1);
  EXPECT_EQ(summary["epoch_test_accuracy"].size(), 2u);
  std::ifstream csv(out + "/iterations.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 1 + 2 * 2 * 16);
}

TEST(RuntimeTraining, ResNet20WithBatchNormKeepsReplicasIdenticalUnderStaircase) {
  const std::string out = TempDir("bn_staircase");
  TrainOptions options = TinyTraining(out, "staircase");
  options.model = "resnet20";
  options.max_iters_per_epoch = 4;
  // TrainRank throws (the replica checksum) if batch-norm statistics or weights diverged.
  TrainOnThreads(options, 2);
  Json summary = ReadJson(out + "/summary.json");
  EXPECT_EQ(summary["epochs_done"], 2);
  EXPECT_EQ(summary["blocks"], 11);
}

}  // namespace
}  // namespace jigsaw
