// A wide-area topology for failure-recovery studies: switches (nodes) joined by bidirectional
// links, each with a propagation delay and a rate.
//
// Contract (established by FinishTopology, relied on by everything in src/d2r):
//  * links are unique per node pair (parallel edges of the input are merged into one link whose
//    rate is the sum of the known rates) and never self-loops (dropped, counted);
//  * adjacency[x] lists x's neighbours in increasing node index; "the lowest-index neighbour" is
//    the deterministic tie-break every routing scheme uses;
//  * every link has a delay: great-circle distance / (2/3 c) when both ends have coordinates,
//    otherwise the median of the graph's coordinate-derived delays, otherwise the default;
//  * component[x] numbers connected components (0-based, by lowest node index).
#ifndef JIGSAW_D2R_TOPOLOGY_H_
#define JIGSAW_D2R_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "net/units.h"

namespace jigsaw::d2r {

struct Node {
  std::string id;     // the input's node id
  std::string label;  // human name (may be empty or repeated)
  bool has_coordinates = false;
  double latitude = 0;
  double longitude = 0;
  int line = 0;  // where the node is defined (for messages)
};

struct Link {
  int a = 0;  // a < b
  int b = 0;
  net::Time delay = 0;
  uint64_t rate_bps = 0;
  bool rate_known = false;
  bool delay_from_coordinates = false;
  int parallel_edges = 1;  // input edges merged into this link
  int line = 0;            // first input edge
};

struct Adjacent {
  int node;
  int link;
};

// Values used where the input says nothing.
struct TopologyDefaults {
  uint64_t link_rate_bps = 10'000'000'000ULL;  // 10 Gb/s
  net::Time link_delay = net::kMillisecond;    // when no link of the graph has coordinates
};

struct Topology {
  std::string name;  // file path or label, for messages
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<std::vector<Adjacent>> adjacency;
  std::vector<int> component;
  int num_components = 0;

  // What reading had to repair (reported in outputs).
  int self_loops_dropped = 0;
  int parallel_edges_merged = 0;
  int links_without_coordinates = 0;
  int links_without_rate = 0;
  bool input_directed = false;

  int num_nodes() const { return static_cast<int>(nodes.size()); }
  int num_links() const { return static_cast<int>(links.size()); }
  // Index of the link between x and y, or -1.
  int FindLink(int x, int y) const;
  // The other end of `link` seen from x.
  int Other(int link, int x) const { return links[link].a == x ? links[link].b : links[link].a; }
  // "label" when unique, else "label#id"; for outputs.
  std::string NodeName(int x) const;
  // Resolves a user's node reference: an input node id, or a label naming exactly one node.
  // Returns -1 and sets *why when it names none or several.
  int ResolveNode(const std::string& text, std::string* why) const;
  // Resolves "X-Y" (node references as above; labels may themselves contain '-') to a link.
  int ResolveLink(const std::string& text, std::string* why) const;
};

// An input edge before merging.
struct RawEdge {
  int a;
  int b;
  double rate_bps;  // <= 0: unknown
  int line;
};

// Builds links (merging parallel edges, dropping self-loops), delays, adjacency and components.
void FinishTopology(const std::vector<RawEdge>& edges, const TopologyDefaults& defaults,
                    Topology* topology);

// Great-circle distance in km (haversine, mean Earth radius 6371 km).
double GreatCircleKm(double lat1, double lon1, double lat2, double lon2);
// Propagation delay over `km` of fibre at 2/3 of the speed of light.
net::Time FibreDelay(double km);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_TOPOLOGY_H_
