#include "fl/federated_data.h"

namespace jigsaw {

std::vector<int> FederatedData::groups() const {
  std::vector<int> result;
  result.reserve(clients.size());
  for (const ClientData& client : clients) result.push_back(client.group);
  return result;
}

}  // namespace jigsaw
