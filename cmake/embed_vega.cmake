# cmake -DINPUT_DIR=third_party/vega -DOUTPUT=vendored_js.cc -P embed_vega.cmake
# Writes the vendored charting bundle as C++ raw string literals (src/report/vendored_js.h).
set(delimiter "vendored")
function(read_checked path out)
  file(READ "${path}" content)
  string(FIND "${content}" ")${delimiter}\"" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw string delimiter )${delimiter}\"")
  endif()
  set(${out} "${content}" PARENT_SCOPE)
endfunction()

file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT_DIR} by cmake/embed_vega.cmake; do not edit.\n"
  "#include \"report/vendored_js.h\"\n\nnamespace jigsaw::report {\n\n")
foreach(pair "kVegaJs=vega.min.js" "kVegaLiteJs=vega-lite.min.js"
             "kVegaEmbedJs=vega-embed.min.js" "kVegaVersions=VERSIONS")
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 symbol)
  list(GET parts 1 file)
  read_checked("${INPUT_DIR}/${file}" content)
  file(APPEND "${OUTPUT}.tmp" "const char ${symbol}[] = R\"${delimiter}(${content})${delimiter}\";\n\n")
endforeach()
set(licences "")
foreach(name vega vega-lite vega-embed)
  read_checked("${INPUT_DIR}/LICENSE.${name}" content)
  string(APPEND licences "== ${name} ==\n${content}\n")
endforeach()
file(APPEND "${OUTPUT}.tmp" "const char kVegaLicences[] = R\"${delimiter}(${licences})${delimiter}\";\n\n"
  "}  // namespace jigsaw::report\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
