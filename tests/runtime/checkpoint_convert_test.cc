// `jigsaw checkpoint`: float16 and back, what it keeps, and its errors (exit 2 naming the file or
// the option).
#include "runtime/checkpoint_convert.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "runtime/model_spec.h"
#include "runtime/models.h"
#include "test_util/shell.h"

namespace jigsaw {
namespace {

using test_util::CommandResult;
using test_util::FreshTempDir;
using test_util::RunShell;

CommandResult Jigsaw(const std::string& args) {
  return RunShell(std::string(JIGSAW_BINARY) + " " + args + " 2>&1");
}

// The model a checkpoint holds, loaded the way `jigsaw serve` loads it, with its tensors in
// `type` (the file's precision) before loading.
BlockModel LoadModel(const std::string& path, torch::ScalarType type = torch::kFloat32) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, torch::kCPU);
  const std::optional<ModelSpec> spec = ReadModelSpec(archive);
  EXPECT_TRUE(spec.has_value()) << path;
  BlockModel model =
      MakeModel(spec->model, spec->channels, spec->height, spec->width, spec->classes);
  torch::NoGradGuard no_grad;
  for (torch::Tensor& p : model->parameters()) p.set_data(p.detach().to(type));
  for (torch::Tensor& b : model->buffers()) {
    if (b.is_floating_point()) b.set_data(b.to(type));
  }
  torch::serialize::InputArchive weights;
  archive.read("model", weights);
  model->load(weights);
  return model;
}

TEST(RuntimeCheckpoint, HalfPrecisionRoundTripIsTheRoundedWeightsAndServesAsFloat32) {
  const std::filesystem::path dir = FreshTempDir("jigsaw_checkpoint_", "roundtrip");
  const std::string trained = (dir / "train").string();
  ASSERT_EQ(Jigsaw("train --model resnet20 --dataset synthetic --synthetic-train 64 "
                   "--synthetic-test 16 --synthetic-size 8 --batch 16 --epochs 1 --quiet --out " +
                   trained)
                .exit_code,
            0);
  const std::string original = trained + "/checkpoint.pt";
  const std::string half = (dir / "half.pt").string();
  const std::string back = (dir / "back.pt").string();
  CommandResult to_half = Jigsaw("checkpoint --input " + original + " --output " + half);
  ASSERT_EQ(to_half.exit_code, 0) << to_half.output;
  ASSERT_EQ(
      Jigsaw("checkpoint --input " + half + " --output " + back + " --dtype float32").exit_code, 0);
  // Half the bytes of the weights, give or take the archive's own overhead.
  EXPECT_LT(std::filesystem::file_size(half), 0.6 * std::filesystem::file_size(back));
  BlockModel expected = LoadModel(original);
  BlockModel halved = LoadModel(half, torch::kHalf);
  BlockModel restored = LoadModel(back);
  auto e = expected->named_parameters();
  auto h = halved->named_parameters();
  auto r = restored->named_parameters();
  ASSERT_EQ(e.size(), r.size());
  for (const auto& item : e) {
    const torch::Tensor rounded = item.value().to(torch::kHalf);
    EXPECT_TRUE(torch::equal(h[item.key()], rounded)) << item.key();
    EXPECT_TRUE(torch::equal(r[item.key()], rounded.to(torch::kFloat32))) << item.key();
  }
  // Integer buffers (batch norm's step counters) are kept as they were.
  auto eb = expected->named_buffers();
  auto rb = restored->named_buffers();
  for (const auto& item : eb) {
    if (item.value().is_floating_point()) continue;
    EXPECT_EQ(rb[item.key()].scalar_type(), item.value().scalar_type()) << item.key();
    EXPECT_TRUE(torch::equal(rb[item.key()], item.value())) << item.key();
  }
}

TEST(RuntimeCheckpoint, BadInputNamesTheFileOrTheOption) {
  const std::filesystem::path dir = FreshTempDir("jigsaw_checkpoint_", "bad");
  const std::string junk = (dir / "junk.pt").string();
  RunShell("echo not-a-checkpoint > " + junk);
  CommandResult not_checkpoint =
      Jigsaw("checkpoint --input " + junk + " --output " + (dir / "x.pt").string());
  EXPECT_EQ(not_checkpoint.exit_code, 2) << not_checkpoint.output;
  EXPECT_NE(not_checkpoint.output.find(junk), std::string::npos) << not_checkpoint.output;
  CommandResult missing =
      Jigsaw("checkpoint --input " + (dir / "none.pt").string() + " --output " + junk);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no such file"), std::string::npos) << missing.output;
  CommandResult dtype = Jigsaw("checkpoint --input " + junk + " --output " +
                               (dir / "y.pt").string() + " --dtype float64");
  EXPECT_EQ(dtype.exit_code, 2) << dtype.output;
  EXPECT_NE(dtype.output.find("--dtype 'float64': expected float32, float16"), std::string::npos)
      << dtype.output;
  CommandResult same = Jigsaw("checkpoint --input " + junk + " --output " + junk);
  EXPECT_EQ(same.exit_code, 2) << same.output;
  EXPECT_NE(same.output.find("the same file as --input"), std::string::npos) << same.output;
  EXPECT_THROW(ParseWeightsDtype("half"), UsageError);
  EXPECT_EQ(ParseWeightsDtype(WeightsDtypeName(WeightsDtype::kFloat16)), WeightsDtype::kFloat16);
}

}  // namespace
}  // namespace jigsaw
