// Reader of MLCommons Chakra execution traces (`.et`, one file per rank), the workload format of
// ASTRA-sim 2.0: a stream of varint-length-prefixed protobuf messages, one GlobalMetadata then
// Node messages, with the schema of mlcommons/chakra schema/protobuf/et_def.proto (package
// ChakraProtoMsg). Decoded by hand (proto_wire.h), without libprotobuf.
//
// A Node keeps: id, name, type, ctrl_deps and data_deps (packed or not), duration_micros, and the
// attributes the simulator reads (comm_type, comm_size, comm_src, comm_dst, comm_tag, num_ops,
// tensor_size, is_cpu_op; any integer or bool kind of AttributeProto's value). Everything else
// it meets (other attributes, inputs/outputs, start_time_micros, unknown fields) is counted by
// name in ChakraTrace::ignored, never silently dropped.
//
// Errors throw InputError(file, 0, ...) naming the byte offset, the node (its position in the
// file and its id when read) and what was expected: a truncated varint or message, a known field
// with the wrong wire type, a known attribute with a non-integer value, an unknown node type,
// two nodes with one id, a dependency on a node the file lacks, a dependency cycle.
#ifndef JIGSAW_NET_CHAKRA_READER_H_
#define JIGSAW_NET_CHAKRA_READER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jigsaw::net {

enum class ChakraNodeType : uint8_t {
  kInvalid = 0,
  kMetadata = 1,
  kMemLoad = 2,
  kMemStore = 3,
  kComp = 4,
  kCommSend = 5,
  kCommRecv = 6,
  kCommColl = 7,
};
const char* ChakraNodeTypeName(ChakraNodeType type);  // "COMP_NODE", ...

// et_def.proto's CollectiveCommType.
enum class ChakraCollective : uint8_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};
inline constexpr uint64_t kChakraCollectiveCount = 10;
const char* ChakraCollectiveName(uint64_t comm_type);  // "ALL_REDUCE", ..., "?"

struct ChakraNode {
  uint64_t id = 0;
  std::string name;
  ChakraNodeType type = ChakraNodeType::kInvalid;
  std::vector<uint64_t> ctrl_deps;
  std::vector<uint64_t> data_deps;
  uint64_t duration_micros = 0;
  bool is_cpu_op = false;
  std::optional<uint64_t> comm_type;
  std::optional<uint64_t> comm_size;
  std::optional<uint64_t> comm_src;
  std::optional<uint64_t> comm_dst;
  std::optional<uint64_t> comm_tag;
  std::optional<uint64_t> num_ops;
  std::optional<uint64_t> tensor_size;
  size_t index = 0;   // position among the file's nodes (0 = the first Node message)
  size_t offset = 0;  // byte offset of its message
};

struct ChakraTrace {
  std::string file;
  std::string version;            // GlobalMetadata.version, else its "schema" attribute
  std::vector<ChakraNode> nodes;  // in file order
  // What was read and not modelled, by name ("attribute pg_name", "Node.inputs", ...): count.
  std::map<std::string, uint64_t> ignored;
};

inline constexpr size_t kMaxChakraNodes = 10'000'000;

// Parses `bytes` (the file's contents; `file` names it in errors) and checks the graph: unique
// ids, every dependency present, no cycle.
ChakraTrace ParseChakraTrace(const std::string& file, std::string_view bytes);
ChakraTrace ReadChakraTrace(const std::string& path);

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_CHAKRA_READER_H_
