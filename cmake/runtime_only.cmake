# The JIGSAW_RUNTIME_ONLY build (included by the top-level CMakeLists.txt): jigsaw-runtime with
# `train`, `profile` and `checkpoint`, for a machine that has a (CUDA) LibTorch and a compiler but
# none of this project's Debian packages (bench/device/build.sh).
#
# LibTorch: find_package(Torch) through CMAKE_PREFIX_PATH (PyTorch's wheel: its
# torch.utils.cmake_prefix_path), or, with JIGSAW_TORCH_DIR set, the wheel's torch/ folder used
# directly (include/ and lib/; no CUDA toolkit needed at configure time, since no source here
# includes CUDA headers).
# Header-only dependencies, zlib and libjpeg: the system's, else JIGSAW_DEPS_DIR/include and
# JIGSAW_DEPS_DIR/lib (bench/device/prepare.sh fills them from this machine's Debian packages).
# Gloo's headers: LibTorch's own include/ when it ships them, else JIGSAW_GLOO_INCLUDE.
set(JIGSAW_DEPS_DIR "" CACHE PATH "fallback include/ and lib/ for the runtime-only build")
set(JIGSAW_GLOO_INCLUDE "" CACHE PATH "folder holding gloo/ headers, if LibTorch has none")
set(JIGSAW_TORCH_DIR "" CACHE PATH "a torch/ package folder to use without TorchConfig")
if(JIGSAW_DEPS_DIR)
  list(APPEND CMAKE_PREFIX_PATH "${JIGSAW_DEPS_DIR}")
endif()

find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(JIGSAW_NLOHMANN_INCLUDE nlohmann/json.hpp REQUIRED)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${JIGSAW_NLOHMANN_INCLUDE}")
endif()
find_path(JIGSAW_CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
include_directories(SYSTEM "${JIGSAW_CLI11_INCLUDE}")

set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL ON)
if(JIGSAW_TORCH_DIR)
  # PyTorch's wheel without its CMake package: the libraries and headers as they are.
  add_library(torch INTERFACE IMPORTED GLOBAL)
  set(_torch_lib "${JIGSAW_TORCH_DIR}/lib")
  set(_torch_libs "${_torch_lib}/libtorch.so" "${_torch_lib}/libtorch_cpu.so"
    "${_torch_lib}/libc10.so")
  if(EXISTS "${_torch_lib}/libtorch_cuda.so")
    # Linked even though nothing here calls it: loading it registers LibTorch's CUDA backend.
    list(APPEND _torch_libs "-Wl,--no-as-needed" "${_torch_lib}/libtorch_cuda.so"
      "${_torch_lib}/libc10_cuda.so" "-Wl,--as-needed")
  endif()
  set_target_properties(torch PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES
      "${JIGSAW_TORCH_DIR}/include;${JIGSAW_TORCH_DIR}/include/torch/csrc/api/include"
    INTERFACE_COMPILE_DEFINITIONS "USE_DISTRIBUTED;USE_C10D_GLOO;USE_RPC;USE_TENSORPIPE"
    # The CUDA libraries these depend on are found at run time through their own RUNPATH.
    INTERFACE_LINK_LIBRARIES "${_torch_libs};-Wl,--allow-shlib-undefined;-Wl,-rpath,${_torch_lib}")
  if(DEFINED JIGSAW_TORCH_CXX11_ABI)
    set_property(TARGET torch APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
      "_GLIBCXX_USE_CXX11_ABI=${JIGSAW_TORCH_CXX11_ABI}")
  endif()
  set(_torch_include "${JIGSAW_TORCH_DIR}/include")
else()
  find_package(Torch REQUIRED)
  list(GET TORCH_INCLUDE_DIRS 0 _torch_include)
endif()
if(NOT EXISTS "${_torch_include}/gloo/context.h")
  if(NOT JIGSAW_GLOO_INCLUDE)
    message(FATAL_ERROR "LibTorch ships no Gloo headers: set JIGSAW_GLOO_INCLUDE")
  endif()
  include_directories(SYSTEM "${JIGSAW_GLOO_INCLUDE}")
  message(STATUS "Gloo headers: ${JIGSAW_GLOO_INCLUDE}")
else()
  message(STATUS "Gloo headers: LibTorch's (${_torch_include})")
endif()
set(JIGSAW_GIT_DESCRIBE "")
include_directories(${CMAKE_SOURCE_DIR}/src)
add_subdirectory(src/core)
add_subdirectory(src/spb)
add_subdirectory(src/runtime)
add_subdirectory(src/cli)
