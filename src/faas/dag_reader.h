// Reading DAG files (format "jigsaw-faas-dags-v1", documented in docs/faas.md):
//
//   {"format": "jigsaw-faas-dags-v1",
//    "dags": [{"name": "thumbnail", "deadline": "300ms", "rate": 50,
//              "functions": [{"name": "fetch", "duration": "20ms"},
//                            {"name": "resize", "duration": "40ms", "after": ["fetch"],
//                             "setup": "300ms", "memory": "256MB", "duration_cv": 0.3}]}]}
//
// Durations and sizes use the core unit spellings (net/units.h). "rate" (requests/s, for the
// simulator) defaults to 1, "setup" to 250ms,
// "memory" to 128MB, "duration_cv" to 0.2, "code" (what the real platform `jigsaw faas` runs,
// faas/function_code.h) to "sha256:1MiB"; the simulator ignores "code". Every error is
// InputError(file, line of the DAG's entry, what was expected): unknown or duplicate function, a
// cycle, a missing or non-positive deadline, an empty DAG, a value out of range.
#ifndef JIGSAW_FAAS_DAG_READER_H_
#define JIGSAW_FAAS_DAG_READER_H_

#include <string>

#include "faas/dag.h"

namespace jigsaw::faas {

Catalog ReadDagFile(const std::string& path);
// The same over in-memory text; `name` stands for the file in errors.
Catalog ParseDagText(const std::string& name, const std::string& text);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_DAG_READER_H_
