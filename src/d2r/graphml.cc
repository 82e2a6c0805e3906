#include "d2r/graphml.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <pugixml.hpp>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/text_input.h"

namespace jigsaw::d2r {
namespace {

class Reader {
 public:
  Reader(const std::string& name, const std::string& text) : name_(name) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') newlines_.push_back(i);
    }
  }

  int LineOf(const pugi::xml_node& node) const {
    ptrdiff_t offset = node.offset_debug();
    if (offset < 0) return 0;
    // 1 + the newlines before the offset.
    return 1 + static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(),
                                                 static_cast<size_t>(offset)) -
                                newlines_.begin());
  }
  [[noreturn]] void Fail(const pugi::xml_node& node, const std::string& message) const {
    throw InputError(name_, LineOf(node), message);
  }
  // Parses a finite number; fails naming the node and field otherwise.
  double Number(const pugi::xml_node& data, std::string_view value, const std::string& what) const {
    std::string copy(Trim(value));
    char* end = nullptr;
    errno = 0;
    double parsed = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || errno == ERANGE ||
        !std::isfinite(parsed)) {
      Fail(data, what + " '" + copy + "' is not a number");
    }
    return parsed;
  }

 private:
  const std::string& name_;
  std::vector<size_t> newlines_;
};

struct Keys {
  // key id -> attribute name, separately for nodes and edges (GraphML scopes keys by "for").
  std::map<std::string, std::string> node;
  std::map<std::string, std::string> edge;
};

Keys ReadKeys(const pugi::xml_node& root) {
  Keys keys;
  for (pugi::xml_node key : root.children("key")) {
    const std::string id = key.attribute("id").value();
    const std::string name = key.attribute("attr.name").value();
    const std::string scope = key.attribute("for").value();
    if (scope == "node" || scope == "all") keys.node[id] = name;
    if (scope == "edge" || scope == "all") keys.edge[id] = name;
  }
  return keys;
}

void ReadNode(const Reader& reader, const Keys& keys, const pugi::xml_node& xml, Node* node) {
  bool has_latitude = false, has_longitude = false;
  for (pugi::xml_node data : xml.children("data")) {
    auto it = keys.node.find(data.attribute("key").value());
    if (it == keys.node.end()) continue;
    const std::string& field = it->second;
    std::string_view value = data.child_value();
    if (field == "label") {
      node->label = std::string(Trim(value));
    } else if (field == "Latitude") {
      node->latitude = reader.Number(data, value, "node '" + node->id + "': Latitude");
      if (std::abs(node->latitude) > 90) {
        reader.Fail(data, "node '" + node->id + "': Latitude must be within [-90, 90]");
      }
      has_latitude = true;
    } else if (field == "Longitude") {
      node->longitude = reader.Number(data, value, "node '" + node->id + "': Longitude");
      if (std::abs(node->longitude) > 180) {
        reader.Fail(data, "node '" + node->id + "': Longitude must be within [-180, 180]");
      }
      has_longitude = true;
    }
  }
  if (has_latitude != has_longitude) {
    reader.Fail(xml,
                "node '" + node->id + "' has " +
                    (has_latitude ? "a Latitude but no Longitude" : "a Longitude but no Latitude"));
  }
  node->has_coordinates = has_latitude && has_longitude;
}

}  // namespace

Topology ParseGraphml(const std::string& name, const std::string& text,
                      const TopologyDefaults& defaults) {
  Reader reader(name, text);
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  if (!parsed) {
    throw InputError(name,
                     LineOfOffset(text, static_cast<size_t>(std::max<ptrdiff_t>(0, parsed.offset))),
                     std::string("not well-formed XML: ") + parsed.description());
  }
  pugi::xml_node root = doc.child("graphml");
  if (!root) throw InputError(name, 1, "expected a <graphml> root element (GraphML topology)");
  pugi::xml_node graph = root.child("graph");
  if (!graph) reader.Fail(root, "expected a <graph> element inside <graphml>");
  if (graph.next_sibling("graph")) {
    reader.Fail(graph.next_sibling("graph"), "expected one <graph>; found a second one");
  }
  const Keys keys = ReadKeys(root);

  Topology topology;
  topology.name = name;
  topology.input_directed = std::string_view(graph.attribute("edgedefault").value()) == "directed";
  std::map<std::string, int> index;
  for (pugi::xml_node xml : graph.children("node")) {
    Node node;
    node.id = xml.attribute("id").value();
    node.line = reader.LineOf(xml);
    if (node.id.empty()) reader.Fail(xml, "<node> without an id attribute");
    if (!index.emplace(node.id, topology.num_nodes()).second) {
      reader.Fail(xml, "node id '" + node.id + "' is defined twice (first at line " +
                           std::to_string(topology.nodes[index[node.id]].line) + ")");
    }
    ReadNode(reader, keys, xml, &node);
    topology.nodes.push_back(std::move(node));
  }
  if (topology.nodes.empty()) reader.Fail(graph, "the <graph> has no <node> elements");

  std::vector<RawEdge> edges;
  for (pugi::xml_node xml : graph.children("edge")) {
    const std::string source = xml.attribute("source").value();
    const std::string target = xml.attribute("target").value();
    if (source.empty() || target.empty()) {
      reader.Fail(xml, "<edge> needs both source and target attributes");
    }
    auto a = index.find(source), b = index.find(target);
    if (a == index.end()) reader.Fail(xml, "edge source '" + source + "' is not a node id");
    if (b == index.end()) reader.Fail(xml, "edge target '" + target + "' is not a node id");
    RawEdge edge{a->second, b->second, 0, reader.LineOf(xml)};
    for (pugi::xml_node data : xml.children("data")) {
      auto it = keys.edge.find(data.attribute("key").value());
      if (it == keys.edge.end() || it->second != "LinkSpeedRaw") continue;
      edge.rate_bps = reader.Number(data, data.child_value(),
                                    "edge " + source + "-" + target + ": LinkSpeedRaw");
      if (edge.rate_bps < 0)
        reader.Fail(data, "edge " + source + "-" + target + ": LinkSpeedRaw must not be negative");
    }
    edges.push_back(edge);
  }
  FinishTopology(edges, defaults, &topology);
  return topology;
}

Topology ReadGraphml(const std::string& path, const TopologyDefaults& defaults) {
  return ParseGraphml(path, ReadWholeFile(path), defaults);
}

}  // namespace jigsaw::d2r
