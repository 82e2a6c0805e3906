#include "runtime/host_staging.h"

namespace jigsaw {

torch::Tensor HostStaging::Pack(const std::vector<torch::Tensor>& parts, int64_t padding) const {
  int64_t total = padding;
  for (const torch::Tensor& p : parts) total += p.numel();
  if (!through_host_) {
    if (parts.size() == 1 && padding == 0) return parts[0].reshape({-1});
    std::vector<torch::Tensor> flat;
    for (const torch::Tensor& p : parts) flat.push_back(p.reshape({-1}));
    if (padding > 0) flat.push_back(torch::zeros({padding}, torch::kFloat32));
    if (flat.empty()) return torch::empty({0}, torch::kFloat32);
    return torch::cat(flat);
  }
  torch::Tensor host = torch::empty({total}, torch::kFloat32);
  int64_t offset = 0;
  for (const torch::Tensor& p : parts) {
    host.narrow(0, offset, p.numel()).copy_(p.reshape({-1}));
    offset += p.numel();
  }
  if (padding > 0) host.narrow(0, offset, padding).zero_();
  return host;
}

void HostStaging::Unpack(const torch::Tensor& flat, const std::vector<torch::Tensor>& parts) {
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (torch::Tensor p : parts) {
    p.copy_(flat.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace jigsaw
