// Reads GraphML topologies (the Internet Topology Zoo format) with pugixml.
//
// Understood: <key attr.name=.. for=node|edge id=..>, one <graph>, <node id> with the node keys
// "label", "Latitude", "Longitude", and <edge source target> with "LinkSpeedRaw" (bit/s). Other
// keys and graph-level data are ignored. edgedefault="directed" graphs are read as undirected
// (links are bidirectional) and flagged. Repairs and defaults are those of FinishTopology.
//
// Errors are InputError(file, line, what was expected): XML syntax errors (pugixml's message and
// the line of the offending byte), no <graphml> root or no <graph>, a node without id or with a
// repeated id, an edge without source/target or naming an unknown node, a Latitude/Longitude or
// LinkSpeedRaw that is not a number (or out of range), one coordinate without the other, a graph
// without nodes.
#ifndef JIGSAW_D2R_GRAPHML_H_
#define JIGSAW_D2R_GRAPHML_H_

#include <string>

#include "d2r/topology.h"

namespace jigsaw::d2r {

Topology ReadGraphml(const std::string& path, const TopologyDefaults& defaults = {});
// For in-memory text; `name` is used in error messages.
Topology ParseGraphml(const std::string& name, const std::string& text,
                      const TopologyDefaults& defaults = {});

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_GRAPHML_H_
