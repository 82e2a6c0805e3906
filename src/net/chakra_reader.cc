#include "net/chakra_reader.h"

#include <algorithm>
#include <unordered_map>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"
#include "net/proto_wire.h"

namespace jigsaw::net {
namespace {

// AttributeProto's value fields: the wire type each must have, and whether it holds an integer
// (or bool) that a known attribute may carry.
struct ValueField {
  WireType wire;
  bool integer;
  bool zigzag;
  bool bits32;
  const char* name;
};

ValueField ValueFieldOf(uint32_t field) {
  switch (field) {
    case 3:
      return {WireType::kFixed64, false, false, false, "double_val"};
    case 5:
      return {WireType::kFixed32, false, false, false, "float_val"};
    case 7:
      return {WireType::kVarint, true, false, true, "int32_val"};
    case 9:
      return {WireType::kVarint, true, false, false, "int64_val"};
    case 11:
      return {WireType::kVarint, true, false, true, "uint32_val"};
    case 13:
      return {WireType::kVarint, true, false, false, "uint64_val"};
    case 15:
      return {WireType::kVarint, true, true, true, "sint32_val"};
    case 17:
      return {WireType::kVarint, true, true, false, "sint64_val"};
    case 19:
      return {WireType::kFixed32, true, false, true, "fixed32_val"};
    case 21:
      return {WireType::kFixed64, true, false, false, "fixed64_val"};
    case 23:
      return {WireType::kFixed32, true, false, true, "sfixed32_val"};
    case 25:
      return {WireType::kFixed64, true, false, false, "sfixed64_val"};
    case 27:
      return {WireType::kVarint, true, false, false, "bool_val"};
    case 29:
      return {WireType::kLengthDelimited, false, false, false, "string_val"};
    case 31:
      return {WireType::kLengthDelimited, false, false, false, "bytes_val"};
    default:
      break;
  }
  // The even fields 4..32 are the *List messages.
  if (field >= 4 && field <= 32 && field % 2 == 0) {
    return {WireType::kLengthDelimited, false, false, false, "a list value"};
  }
  return {WireType::kVarint, false, false, false, nullptr};
}

void RequireWire(const WireReader& reader, const char* what, WireType got, WireType expected) {
  if (got != expected) {
    reader.FailAtKey(std::string(what) + " has wire type " + WireTypeName(got) + ", expected " +
                     WireTypeName(expected));
  }
}

// An integer value of one of the integer kinds, as a signed 64-bit number.
int64_t ReadInteger(WireReader& reader, const ValueField& kind) {
  uint64_t raw = 0;
  if (kind.wire == WireType::kVarint) {
    raw = reader.ReadVarint();
  } else if (kind.wire == WireType::kFixed32) {
    raw = reader.ReadFixed32();
    if (kind.name[1] == 'f') raw = static_cast<uint64_t>(static_cast<int32_t>(raw));  // sfixed32
  } else {
    raw = reader.ReadFixed64();
  }
  if (kind.zigzag) return ZigZagDecode(raw);
  if (kind.bits32 && kind.wire == WireType::kVarint && kind.name[0] == 'i') {
    return static_cast<int32_t>(raw);  // int32: sign-extended on the wire
  }
  return static_cast<int64_t>(raw);
}

std::optional<uint64_t>* KnownAttribute(ChakraNode* node, std::string_view name) {
  if (name == "comm_type") return &node->comm_type;
  if (name == "comm_size") return &node->comm_size;
  if (name == "comm_src") return &node->comm_src;
  if (name == "comm_dst") return &node->comm_dst;
  if (name == "comm_tag") return &node->comm_tag;
  if (name == "num_ops") return &node->num_ops;
  if (name == "tensor_size") return &node->tensor_size;
  return nullptr;
}

// One AttributeProto of a node (or of the metadata when node is null).
void ParseAttribute(WireReader reader, ChakraNode* node, ChakraTrace* trace) {
  std::string name;
  std::string string_value;
  bool has_integer = false;
  int64_t integer = 0;
  const char* value_kind = nullptr;
  while (!reader.done()) {
    uint32_t field;
    WireType type;
    reader.ReadKey(&field, &type);
    if (field == 1 || field == 2) {
      RequireWire(reader, field == 1 ? "AttributeProto.name (1)" : "AttributeProto.doc_string (2)",
                  type, WireType::kLengthDelimited);
      const std::string_view text = reader.ReadBytes();
      if (field == 1) name = std::string(text.substr(0, 256));
      continue;
    }
    const ValueField kind = ValueFieldOf(field);
    if (kind.name == nullptr) {
      reader.Skip(type);
      ++trace->ignored["AttributeProto field " + std::to_string(field)];
      continue;
    }
    RequireWire(reader, (std::string("AttributeProto.") + kind.name).c_str(), type, kind.wire);
    value_kind = kind.name;
    if (kind.integer) {
      integer = ReadInteger(reader, kind);
      has_integer = true;
    } else if (field == 29) {
      string_value = std::string(reader.ReadBytes().substr(0, 64));
    } else {
      reader.Skip(type);
    }
  }
  if (node == nullptr) {
    if (name == "schema") {  // the schema version: read, not ignored
      if (trace->version.empty()) trace->version = string_value;
      return;
    }
    ++trace->ignored["GlobalMetadata attribute " + Excerpt(name)];
    return;
  }
  std::optional<uint64_t>* slot = KnownAttribute(node, name);
  if (slot != nullptr || name == "is_cpu_op") {
    if (!has_integer) {
      reader.Fail("attribute '" + name + "': expected an integer or bool value, found " +
                  (value_kind ? value_kind : "no value"));
    }
    if (integer < 0) {
      reader.Fail("attribute '" + name + "': expected a non-negative value, found " +
                  std::to_string(integer));
    }
    if (slot != nullptr) {
      *slot = static_cast<uint64_t>(integer);
    } else {
      node->is_cpu_op = integer != 0;
    }
    return;
  }
  ++trace->ignored["attribute " + Excerpt(name)];
}

void ReadIds(WireReader& reader, WireType type, std::vector<uint64_t>* ids, const char* what) {
  if (type == WireType::kVarint) {
    ids->push_back(reader.ReadVarint());
    return;
  }
  RequireWire(reader, what, type, WireType::kLengthDelimited);  // packed
  WireReader packed = reader.ReadLengthDelimited();
  while (!packed.done()) ids->push_back(packed.ReadVarint());
}

void ParseNodeFields(WireReader& reader, ChakraNode* node, ChakraTrace* trace) {
  while (!reader.done()) {
    uint32_t field;
    WireType type;
    reader.ReadKey(&field, &type);
    switch (field) {
      case 1:
        RequireWire(reader, "Node.id (1)", type, WireType::kVarint);
        node->id = reader.ReadVarint();
        break;
      case 2:
        RequireWire(reader, "Node.name (2)", type, WireType::kLengthDelimited);
        node->name = std::string(reader.ReadBytes().substr(0, 256));
        break;
      case 3: {
        RequireWire(reader, "Node.type (3)", type, WireType::kVarint);
        const uint64_t value = reader.ReadVarint();
        if (value > 7) {
          reader.Fail("Node.type " + std::to_string(value) +
                      ": expected a NodeType of 0..7 (METADATA_NODE .. COMM_COLL_NODE)");
        }
        node->type = static_cast<ChakraNodeType>(value);
        break;
      }
      case 4:
        ReadIds(reader, type, &node->ctrl_deps, "Node.ctrl_deps (4)");
        break;
      case 5:
        ReadIds(reader, type, &node->data_deps, "Node.data_deps (5)");
        break;
      case 6:
        RequireWire(reader, "Node.start_time_micros (6)", type, WireType::kVarint);
        reader.ReadVarint();
        ++trace->ignored["Node.start_time_micros"];
        break;
      case 7:
        RequireWire(reader, "Node.duration_micros (7)", type, WireType::kVarint);
        node->duration_micros = reader.ReadVarint();
        break;
      case 8:
      case 9:
        RequireWire(reader, field == 8 ? "Node.inputs (8)" : "Node.outputs (9)", type,
                    WireType::kLengthDelimited);
        reader.ReadLengthDelimited();
        ++trace->ignored[field == 8 ? "Node.inputs" : "Node.outputs"];
        break;
      case 10:
        RequireWire(reader, "Node.attr (10)", type, WireType::kLengthDelimited);
        ParseAttribute(reader.ReadLengthDelimited(), node, trace);
        break;
      default:
        reader.Skip(type);
        ++trace->ignored["Node field " + std::to_string(field)];
    }
  }
}

void ParseMetadata(WireReader reader, ChakraTrace* trace) {
  while (!reader.done()) {
    uint32_t field;
    WireType type;
    reader.ReadKey(&field, &type);
    if (field == 1) {
      RequireWire(reader, "GlobalMetadata.version (1)", type, WireType::kLengthDelimited);
      trace->version = std::string(reader.ReadBytes().substr(0, 64));
    } else if (field == 2) {
      RequireWire(reader, "GlobalMetadata.attr (2)", type, WireType::kLengthDelimited);
      ParseAttribute(reader.ReadLengthDelimited(), nullptr, trace);
    } else {
      reader.Skip(type);
      ++trace->ignored["GlobalMetadata field " + std::to_string(field)];
    }
  }
}

std::string NodeLabel(const ChakraNode& node) {
  return "node " + std::to_string(node.id) + " (#" + std::to_string(node.index) + " in the file)";
}

// Unique ids, every dependency present, and no cycle (Kahn's order; a node left over is on a
// cycle or behind one, and following its unfinished dependencies finds the cycle).
void CheckGraph(const ChakraTrace& trace) {
  std::unordered_map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const auto [it, inserted] = by_id.emplace(trace.nodes[i].id, i);
    if (!inserted) {
      throw InputError(trace.file, 0,
                       NodeLabel(trace.nodes[i]) + ": the id is already used by node #" +
                           std::to_string(it->second) + "; expected unique node ids");
    }
  }
  std::vector<std::vector<size_t>> dependents(trace.nodes.size());
  std::vector<size_t> waiting(trace.nodes.size(), 0);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const ChakraNode& node = trace.nodes[i];
    for (const std::vector<uint64_t>* deps : {&node.ctrl_deps, &node.data_deps}) {
      for (uint64_t dep : *deps) {
        const auto it = by_id.find(dep);
        if (it == by_id.end()) {
          throw InputError(trace.file, 0,
                           NodeLabel(node) + " depends on node " + std::to_string(dep) +
                               ", which is not in the file; expected the id of one of its nodes");
        }
        dependents[it->second].push_back(i);
        ++waiting[i];
      }
    }
  }
  std::vector<size_t> ready;
  for (size_t i = 0; i < waiting.size(); ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  size_t done = 0;
  while (!ready.empty()) {
    const size_t i = ready.back();
    ready.pop_back();
    ++done;
    for (size_t d : dependents[i]) {
      if (--waiting[d] == 0) ready.push_back(d);
    }
  }
  if (done == trace.nodes.size()) return;
  size_t at = std::find_if(waiting.begin(), waiting.end(), [](size_t w) { return w > 0; }) -
              waiting.begin();
  std::vector<size_t> path;
  std::vector<size_t> seen(trace.nodes.size(), SIZE_MAX);
  while (seen[at] == SIZE_MAX) {
    seen[at] = path.size();
    path.push_back(at);
    const ChakraNode& node = trace.nodes[at];
    size_t next = at;
    for (const std::vector<uint64_t>* deps : {&node.ctrl_deps, &node.data_deps}) {
      for (uint64_t dep : *deps) {
        const size_t j = by_id.at(dep);
        if (waiting[j] > 0) next = j;
      }
    }
    at = next;
  }
  std::string cycle;
  for (size_t k = seen[at]; k < path.size(); ++k) {
    cycle += std::to_string(trace.nodes[path[k]].id) + " -> ";
    if (cycle.size() > 200) {
      cycle += "... -> ";
      break;
    }
  }
  cycle += std::to_string(trace.nodes[at].id);
  throw InputError(trace.file, 0,
                   NodeLabel(trace.nodes[at]) + " is on a dependency cycle (" + cycle +
                       ", each waiting for the next); expected an acyclic graph");
}

}  // namespace

const char* ChakraNodeTypeName(ChakraNodeType type) {
  static const char* const kNames[] = {"INVALID_NODE",   "METADATA_NODE", "MEM_LOAD_NODE",
                                       "MEM_STORE_NODE", "COMP_NODE",     "COMM_SEND_NODE",
                                       "COMM_RECV_NODE", "COMM_COLL_NODE"};
  const auto index = static_cast<size_t>(type);
  return index < 8 ? kNames[index] : "?";
}

const char* ChakraCollectiveName(uint64_t comm_type) {
  static const char* const kNames[] = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  return comm_type < kChakraCollectiveCount ? kNames[comm_type] : "?";
}

ChakraTrace ParseChakraTrace(const std::string& file, std::string_view bytes) {
  ChakraTrace trace;
  trace.file = file;
  WireReader stream(bytes, 0);
  bool metadata = true;
  ChakraNode node;
  try {
    while (!stream.done()) {
      const size_t offset = stream.offset();
      WireReader message = stream.ReadLengthDelimited();
      if (metadata) {
        ParseMetadata(message, &trace);
        metadata = false;
        continue;
      }
      if (trace.nodes.size() >= kMaxChakraNodes) {
        throw InputError(file, 0, "more than " + std::to_string(kMaxChakraNodes) + " nodes");
      }
      node = ChakraNode();
      node.index = trace.nodes.size();
      node.offset = offset;
      ParseNodeFields(message, &node, &trace);
      trace.nodes.push_back(std::move(node));
    }
  } catch (const WireError& e) {
    const std::string where =
        metadata ? "the GlobalMetadata message"
                 : "node message #" + std::to_string(trace.nodes.size()) +
                       (node.id != 0 || !node.name.empty() ? " (id " + std::to_string(node.id) + ")"
                                                           : "");
    throw InputError(file, 0,
                     "byte " + std::to_string(e.offset()) + ", " + where + ": " + e.what());
  }
  if (metadata) {
    throw InputError(file, 0, "empty: expected a GlobalMetadata message, then Node messages");
  }
  for (const ChakraNode& n : trace.nodes) {
    if (n.type == ChakraNodeType::kInvalid) {
      throw InputError(file, 0,
                       NodeLabel(n) +
                           " has type INVALID_NODE (0 or no type); expected a NodeType "
                           "of 1..7");
    }
  }
  CheckGraph(trace);
  return trace;
}

ChakraTrace ReadChakraTrace(const std::string& path) {
  return ParseChakraTrace(path, ReadWholeFile(path));
}

}  // namespace jigsaw::net
