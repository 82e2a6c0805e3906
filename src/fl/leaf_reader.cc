#include "fl/leaf_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

constexpr int kFemnistPixels = kFemnistSide * kFemnistSide;

// gzread reads gzip and plain files alike.
std::string ReadMaybeGzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw InputError(path, 0, "cannot open the file");
  std::string data;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0) {
    data.append(buffer, n);
    if (data.size() > kMaxInputBytes) {
      gzclose(file);
      throw InputError(path, 0,
                       "more than " + std::to_string(kMaxInputBytes) +
                           " bytes after decompression (docs/limits.md)");
    }
  }
  int error = Z_OK;
  const char* message = gzerror(file, &error);
  const std::string text = message != nullptr ? message : "";
  gzclose(file);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END)) {
    throw InputError(path, 0, "corrupt gzip data: " + text);
  }
  return data;
}

// Line of the first `"key"` after `from` in the text, for errors about that entry.
int LineOfKey(const std::string& text, const std::string& key, size_t from = 0) {
  const size_t at = text.find("\"" + key + "\"", from);
  return LineOfOffset(text, at == std::string::npos ? from : at);
}

}  // namespace

std::vector<LeafUser> ReadLeafFile(const std::string& path) {
  const std::string text = ReadMaybeGzip(path);
  const auto json =
      ParseJsonInput<nlohmann::json>(path, text, "expected a LEAF JSON object (users, user_data)");
  if (!json.is_object()) throw InputError(path, 1, "expected a JSON object at the top level");
  for (const char* key : {"users", "num_samples", "user_data"}) {
    if (!json.contains(key)) {
      throw InputError(path, 1, std::string("missing field \"") + key + "\"");
    }
  }
  const auto& users = json["users"];
  const auto& counts = json["num_samples"];
  const auto& user_data = json["user_data"];
  if (!users.is_array())
    throw InputError(path, LineOfKey(text, "users"), "\"users\": expected an array");
  if (!counts.is_array() || counts.size() != users.size()) {
    throw InputError(path, LineOfKey(text, "num_samples"),
                     "\"num_samples\": expected an array as long as \"users\" (" +
                         std::to_string(users.size()) + ")");
  }
  if (!user_data.is_object()) {
    throw InputError(path, LineOfKey(text, "user_data"), "\"user_data\": expected an object");
  }
  const size_t data_at = text.find("\"user_data\"");
  std::vector<LeafUser> result;
  for (size_t u = 0; u < users.size(); ++u) {
    if (!users[u].is_string()) {
      throw InputError(path, LineOfKey(text, "users"),
                       "\"users\"[" + std::to_string(u) + "]: expected a string");
    }
    LeafUser user;
    user.id = users[u].get<std::string>();
    const int line = LineOfKey(text, user.id, data_at == std::string::npos ? 0 : data_at);
    const std::string where = "user \"" + Excerpt(user.id) + "\": ";
    long long count;
    try {
      count = JsonInteger(counts[u], "num_samples", 0, 1'000'000);
    } catch (const JsonValueError& e) {
      throw InputError(path, LineOfKey(text, "num_samples"), where + e.what());
    }
    if (!user_data.contains(user.id)) throw InputError(path, line, where + "no entry in user_data");
    const auto& entry = user_data[user.id];
    if (!entry.is_object() || !entry.contains("x") || !entry.contains("y") ||
        !entry["x"].is_array() || !entry["y"].is_array()) {
      throw InputError(path, line, where + "expected {\"x\": [...], \"y\": [...]}");
    }
    const auto& xs = entry["x"];
    const auto& ys = entry["y"];
    if (static_cast<long long>(xs.size()) != count || static_cast<long long>(ys.size()) != count) {
      throw InputError(path, line,
                       where + "num_samples says " + std::to_string(count) + " but x has " +
                           std::to_string(xs.size()) + " and y " + std::to_string(ys.size()));
    }
    user.pixels.reserve(count * kFemnistPixels);
    for (long long s = 0; s < count; ++s) {
      const std::string sample = where + "sample " + std::to_string(s) + ": ";
      if (!xs[s].is_array() || xs[s].size() != kFemnistPixels) {
        throw InputError(
            path, line,
            sample + "expected an image of " + std::to_string(kFemnistPixels) + " numbers");
      }
      for (const auto& value : xs[s]) {
        if (!value.is_number()) throw InputError(path, line, sample + "pixel is not a number");
        const double x = value.get<double>();
        if (!(x >= 0.0 && x <= 1.0)) {
          throw InputError(path, line, sample + "pixel " + FormatNumber(x) + " outside [0, 1]");
        }
        user.pixels.push_back(static_cast<uint8_t>(std::lround(x * 255.0)));
      }
      try {
        user.labels.push_back(
            static_cast<int>(JsonInteger(ys[s], "label", 0, kFemnistClasses - 1)));
      } catch (const JsonValueError& e) {
        throw InputError(path, line, sample + e.what());
      }
    }
    result.push_back(std::move(user));
  }
  return result;
}

FederatedData ReadFemnist(const std::string& dir, int max_clients) {
  namespace fs = std::filesystem;
  const fs::path train_dir = fs::path(dir) / "train";
  const fs::path test_dir = fs::path(dir) / "test";
  if (!fs::is_directory(train_dir) || !fs::is_directory(test_dir)) {
    throw InputError(dir, 0, "expected a LEAF folder with train/ and test/ subfolders");
  }
  std::vector<std::string> shards;
  for (const auto& entry : fs::directory_iterator(train_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".json") != std::string::npos) shards.push_back(name);
  }
  std::sort(shards.begin(), shards.end());
  if (shards.empty()) throw InputError(train_dir.string(), 0, "no .json or .json.gz files");
  FederatedData data;
  data.height = kFemnistSide;
  data.width = kFemnistSide;
  data.classes = kFemnistClasses;
  for (const std::string& shard : shards) {
    std::string test_name = shard;
    const size_t at = test_name.find("_train_");
    if (at == std::string::npos) continue;
    test_name.replace(at, 7, "_test_");
    if (!fs::exists(test_dir / test_name)) continue;
    std::vector<LeafUser> train = ReadLeafFile((train_dir / shard).string());
    std::vector<LeafUser> test = ReadLeafFile((test_dir / test_name).string());
    std::map<std::string, const LeafUser*> test_by_id;
    for (const LeafUser& user : test) test_by_id[user.id] = &user;
    for (const LeafUser& user : train) {
      auto found = test_by_id.find(user.id);
      if (found == test_by_id.end() || user.labels.empty() || found->second->labels.empty()) {
        continue;
      }
      ClientData client;
      client.id = user.id;
      const int train_base = static_cast<int>(data.train_pixels.size() / kFemnistPixels);
      const int test_base = static_cast<int>(data.test_pixels.size() / kFemnistPixels);
      data.train_pixels.insert(data.train_pixels.end(), user.pixels.begin(), user.pixels.end());
      data.test_pixels.insert(data.test_pixels.end(), found->second->pixels.begin(),
                              found->second->pixels.end());
      for (size_t s = 0; s < user.labels.size(); ++s) {
        client.train_index.push_back(train_base + static_cast<int>(s));
        client.train_label.push_back(user.labels[s]);
      }
      for (size_t s = 0; s < found->second->labels.size(); ++s) {
        client.test_index.push_back(test_base + static_cast<int>(s));
        client.test_label.push_back(found->second->labels[s]);
      }
      data.clients.push_back(std::move(client));
      if (max_clients > 0 && static_cast<int>(data.clients.size()) >= max_clients) return data;
    }
  }
  if (data.clients.empty()) throw InputError(dir, 0, "no user with both train and test samples");
  return data;
}

void KeepListedClients(const std::string& list_path, FederatedData* data) {
  std::map<std::string, size_t> index_of;
  for (size_t c = 0; c < data->clients.size(); ++c) index_of.emplace(data->clients[c].id, c);
  TextFile file(list_path);
  std::map<std::string, int> listed_at;  // id -> its line in the list
  std::vector<size_t> keep;
  std::string_view line;
  while (file.NextLine(&line)) {
    const std::string id(Trim(line.substr(0, line.find('#'))));
    if (id.empty()) continue;
    const auto found = index_of.find(id);
    if (found == index_of.end()) {
      file.Fail("client id \"" + Excerpt(id) +
                "\": expected the id of a client of the data set (a LEAF writer id)");
    }
    const auto [previous, added] = listed_at.emplace(id, file.line_number());
    if (!added) {
      file.Fail("client id \"" + Excerpt(id) +
                "\": expected each id once (already listed on line " +
                std::to_string(previous->second) + ")");
    }
    keep.push_back(found->second);
  }
  if (keep.empty()) {
    throw InputError(list_path, 0, "expected at least one client id (the list has none)");
  }
  std::vector<ClientData> kept;
  kept.reserve(keep.size());
  for (size_t c : keep) kept.push_back(std::move(data->clients[c]));
  data->clients = std::move(kept);
}

}  // namespace jigsaw
