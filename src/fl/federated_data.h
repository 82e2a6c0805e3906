// A federated population's data: pooled 8-bit images and, per client, which pooled samples it
// holds and under which labels.
//
// Labels live with the client, not the pool, so one image may carry different labels at different
// clients (the label-permutation populations with ground-truth groups). `group` is the client's
// ground-truth group, or -1 where none is known (FEMNIST, Dirichlet skew).
#ifndef JIGSAW_FL_FEDERATED_DATA_H_
#define JIGSAW_FL_FEDERATED_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw {

struct ClientData {
  std::string id;
  int group = -1;
  std::vector<int> train_index;  // into FederatedData::train_pixels (image units)
  std::vector<int> train_label;
  std::vector<int> test_index;  // into FederatedData::test_pixels
  std::vector<int> test_label;
};

struct FederatedData {
  int height = 28;
  int width = 28;
  int classes = 10;
  std::vector<uint8_t> train_pixels;  // image-major, height x width per image
  std::vector<uint8_t> test_pixels;
  std::vector<ClientData> clients;

  int image_size() const { return height * width; }
  bool has_groups() const { return !clients.empty() && clients.front().group >= 0; }
  std::vector<int> groups() const;
};

}  // namespace jigsaw

#endif  // JIGSAW_FL_FEDERATED_DATA_H_
