// Test populations for local-training tests: clients of given sizes holding random 28x28 images
// with random labels, drawn from one seed (every pixel first, then each client's labels in order).
#ifndef JIGSAW_TESTS_FL_RANDOM_POPULATION_H_
#define JIGSAW_TESTS_FL_RANDOM_POPULATION_H_

#include <vector>

#include "core/rng.h"
#include "fl/simulation.h"

namespace jigsaw {

// With `test_on_train`, each client's test set is its training set.
inline FederatedData RandomImagePopulation(const std::vector<int>& sizes, uint64_t seed,
                                           bool test_on_train) {
  FederatedData data;
  data.height = data.width = 28;
  data.classes = 10;
  Rng rng(seed);
  int total = 0;
  for (int n : sizes) total += n;
  for (int i = 0; i < total * 784; ++i) data.train_pixels.push_back(rng.UniformInt(256));
  data.test_pixels = data.train_pixels;
  int next = 0;
  for (int n : sizes) {
    ClientData client;
    for (int s = 0; s < n; ++s) {
      client.train_index.push_back(next++);
      client.train_label.push_back(static_cast<int>(rng.UniformInt(10)));
    }
    if (test_on_train) {
      client.test_index = client.train_index;
      client.test_label = client.train_label;
    }
    data.clients.push_back(client);
  }
  return data;
}

}  // namespace jigsaw

#endif  // JIGSAW_TESTS_FL_RANDOM_POPULATION_H_
