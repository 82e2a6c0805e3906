// An SGS serves its load balancer only (faas/sgs_secret.h): without the secret, or with another
// one, every endpoint answers 403 before the body is read; with it, the request runs. The secrets
// the platform draws are 128 random bits, and the comparison is exact.
#include "faas/sgs_secret.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "faas/dag_reader.h"
#include "faas/sgs_server.h"

namespace jigsaw::faas {
namespace {

TEST(SgsSecret, DirectCallsWithoutTheSecretAreRefused) {
  SgsOptions options;
  options.jigsaw_exe = JIGSAW_BINARY;
  options.slots = 1;
  options.proactive = false;
  options.secret = NewSgsSecret();
  const Catalog catalog = ParseDagText("test.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "h", "deadline": "60s", "functions": [
      {"name": "f", "duration": "1ms", "code": "sha256:1KiB"}]}]})");
  SgsServer server(catalog, options);
  const int port = server.Start(0);
  httplib::Client stranger("127.0.0.1", port);
  stranger.set_read_timeout(60, 0);
  for (const std::string& path : {std::string("/stats?reset=1"), std::string("/stats")}) {
    auto res = stranger.Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 403) << path;
    EXPECT_NE(res->body.find("serves its load balancer only"), std::string::npos) << res->body;
  }
  auto run = stranger.Post("/run/h", std::string(4096, 'x'), "application/octet-stream");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, 403);
  httplib::Client guesser("127.0.0.1", port);
  guesser.set_default_headers({{kSgsSecretHeader, NewSgsSecret()}});
  auto guessed = guesser.Post("/fn/h/f", "x", "application/octet-stream");
  ASSERT_TRUE(guessed);
  EXPECT_EQ(guessed->status, 403);
  httplib::Client lb("127.0.0.1", port);
  lb.set_read_timeout(60, 0);
  lb.set_default_headers({{kSgsSecretHeader, options.secret}});
  auto served = lb.Post("/run/h", "x", "application/octet-stream");
  ASSERT_TRUE(served);
  EXPECT_EQ(served->status, 200) << served->body;
  server.Stop();
}

TEST(SgsSecret, SecretsAreFreshAndComparedExactly) {
  const std::string a = NewSgsSecret(), b = NewSgsSecret();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(SgsSecretMatches(a, a));
  EXPECT_FALSE(SgsSecretMatches(a, b));
  EXPECT_FALSE(SgsSecretMatches(a, a.substr(0, 31)));
  EXPECT_FALSE(SgsSecretMatches("", ""));
}

}  // namespace
}  // namespace jigsaw::faas
