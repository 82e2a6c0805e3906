#include "runtime/tar_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/error.h"

namespace jigsaw {
namespace {

constexpr size_t kBlock = 512;
constexpr uint64_t kMaxLongName = 64 * 1024;
constexpr uint64_t kMaxPaxHeader = 1024 * 1024;

gzFile File(void* file) { return static_cast<gzFile>(file); }

bool AllZero(const char* block) {
  return std::all_of(block, block + kBlock, [](char c) { return c == 0; });
}

std::string Field(const char* field, size_t length) {
  return std::string(field, strnlen(field, length));
}

// The name stored in the header itself: POSIX ustar splits long names into prefix + name; the old
// GNU format ("ustar  \0") uses the prefix bytes for other things.
std::string HeaderName(const char* header) {
  std::string name = Field(header, 100);
  if (std::memcmp(header + 257, "ustar\0", 6) == 0) {
    std::string prefix = Field(header + 345, 155);
    if (!prefix.empty()) name = prefix + "/" + name;
  }
  return name;
}

}  // namespace

TarReader::TarReader(const std::string& path) : path_(path) {
  file_ = gzopen(path.c_str(), "rb");
  if (file_ == nullptr) {
    throw InputError(path, 0, std::string("cannot open the file: ") + std::strerror(errno));
  }
  gzbuffer(File(file_), 1 << 17);
}

TarReader::~TarReader() { gzclose(File(file_)); }

void TarReader::Fail(uint64_t offset, const std::string& message) const {
  throw InputError(path_, 0, "byte " + std::to_string(offset) + ": " + message);
}

size_t TarReader::Read(char* buffer, size_t n) {
  size_t got = 0;
  while (got < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 30));
    const int read = gzread(File(file_), buffer + got, chunk);
    if (read <= 0) break;
    got += static_cast<size_t>(read);
  }
  offset_ += got;
  if (got < n) {
    int error = Z_OK;
    const char* message = gzerror(File(file_), &error);
    if (error != Z_OK && error != Z_STREAM_END) {
      Fail(offset_, std::string("corrupt or truncated gzip data: ") + message);
    }
  }
  return got;
}

bool TarReader::ReadBlock(char* block) {
  const uint64_t start = offset_;
  const size_t got = Read(block, kBlock);
  if (got == 0) return false;
  if (got < kBlock) {
    Fail(start, "truncated archive: a header of " + std::to_string(got) + " of 512 bytes");
  }
  return true;
}

void TarReader::Skip(uint64_t n) {
  char buffer[1 << 16];
  while (n > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, sizeof(buffer)));
    if (Read(buffer, chunk) < chunk) {
      Fail(current_.data_offset, "truncated archive: member '" + current_.name + "' announces " +
                                     std::to_string(current_.size) + " data bytes, only " +
                                     std::to_string(offset_ - current_.data_offset) + " present");
    }
    n -= chunk;
  }
}

void TarReader::SkipRemainder() {
  Skip(unread_);
  unread_ = 0;
  Skip(padding_);
  padding_ = 0;
}

std::string TarReader::ReadData(uint64_t max_bytes) {
  if (unread_ != current_.size) throw std::logic_error("TarReader::ReadData: data already read");
  if (current_.size > max_bytes) {
    Fail(current_.data_offset, "member '" + current_.name + "' is " +
                                   std::to_string(current_.size) + " bytes, more than the " +
                                   std::to_string(max_bytes) + " expected");
  }
  // Grows with the data actually present, so a corrupt size cannot force a huge allocation.
  std::string data;
  while (unread_ > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(unread_, 1 << 16));
    const size_t old_size = data.size();
    data.resize(old_size + chunk);
    if (Read(data.data() + old_size, chunk) < chunk) {
      Fail(current_.data_offset, "truncated archive: member '" + current_.name + "' announces " +
                                     std::to_string(current_.size) + " data bytes, only " +
                                     std::to_string(offset_ - current_.data_offset) + " present");
    }
    unread_ -= chunk;
  }
  return data;
}

namespace {

// Octal, space/NUL terminated, or GNU base-256 (high bit of the first byte set).
uint64_t ParseNumber(const TarReader& reader, const char* field, size_t length, const char* what,
                     uint64_t offset) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(field);
  uint64_t value = 0;
  if (bytes[0] & 0x80) {
    if (bytes[0] & 0x40) reader.Fail(offset, std::string("negative ") + what + " field");
    value = bytes[0] & 0x3f;
    for (size_t i = 1; i < length; ++i) {
      if (value > (UINT64_MAX >> 8)) reader.Fail(offset, std::string(what) + " field overflows");
      value = (value << 8) | bytes[i];
    }
    return value;
  }
  size_t i = 0;
  while (i < length && field[i] == ' ') ++i;
  for (; i < length && field[i] >= '0' && field[i] <= '7'; ++i)
    value = value * 8 + (field[i] - '0');
  for (; i < length; ++i) {
    if (field[i] != ' ' && field[i] != '\0') {
      reader.Fail(offset, std::string(what) + " field '" + Field(field, length) +
                              "' is not an octal number (corrupt archive or not a tar file)");
    }
  }
  return value;
}

// Unsigned sum is the standard; some old tars summed signed chars.
bool ChecksumMatches(const char* header, uint64_t stored) {
  uint64_t unsigned_sum = 0;
  int64_t signed_sum = 0;
  for (size_t i = 0; i < kBlock; ++i) {
    const char c = (i >= 148 && i < 156) ? ' ' : header[i];
    unsigned_sum += static_cast<unsigned char>(c);
    signed_sum += static_cast<signed char>(c);
  }
  return stored == unsigned_sum || static_cast<int64_t>(stored) == signed_sum;
}

// Records are "<length> <key>=<value>\n"; returns the "path" value, "" if none.
std::string PaxPath(const TarReader& reader, const std::string& data, uint64_t offset) {
  std::string path;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t space = data.find(' ', pos);
    size_t length = 0;
    bool ok = space != std::string::npos && space > pos && space - pos < 10;
    for (size_t i = pos; ok && i < space; ++i) {
      ok = data[i] >= '0' && data[i] <= '9';
      length = length * 10 + (data[i] - '0');
    }
    ok = ok && length > space - pos + 1 && pos + length <= data.size() &&
         data[pos + length - 1] == '\n';
    const size_t equals = ok ? data.find('=', space) : std::string::npos;
    if (!ok || equals >= pos + length) {
      reader.Fail(offset + pos, "malformed pax extended header record");
    }
    if (data.compare(space + 1, equals - space - 1, "path") == 0) {
      path = data.substr(equals + 1, pos + length - 1 - equals - 1);
    }
    pos += length;
  }
  return path;
}

}  // namespace

bool TarReader::Next(TarMember* member) {
  if (ended_) return false;
  SkipRemainder();
  std::string long_name;
  while (true) {
    const uint64_t header_offset = offset_;
    char header[kBlock];
    if (!ReadBlock(header)) {
      Fail(header_offset, "truncated archive: it ends without the end-of-archive marker");
    }
    if (AllZero(header)) {
      // The end-of-archive marker. Reading on to the end lets zlib verify the gzip trailer, so
      // a cut-off archive is noticed even when only zero padding is missing.
      char rest[1 << 16];
      while (Read(rest, sizeof(rest)) == sizeof(rest)) {
      }
      unread_ = padding_ = 0;
      current_ = TarMember{};
      ended_ = true;
      return false;
    }
    const uint64_t checksum = ParseNumber(*this, header + 148, 8, "checksum", header_offset);
    if (!ChecksumMatches(header, checksum)) {
      Fail(header_offset, "header checksum mismatch (corrupt archive or not a tar file)");
    }
    current_ = TarMember{};
    current_.size = ParseNumber(*this, header + 124, 12, "size", header_offset);
    current_.header_offset = header_offset;
    current_.data_offset = offset_;
    unread_ = current_.size;
    padding_ = (kBlock - current_.size % kBlock) % kBlock;
    const char type = header[156];
    if (type == 'L') {
      current_.name = "(GNU long name)";
      long_name = ReadData(kMaxLongName);
      long_name.resize(strnlen(long_name.data(), long_name.size()));
      SkipRemainder();
      continue;
    }
    if (type == 'x') {
      current_.name = "(pax extended header)";
      std::string path = PaxPath(*this, ReadData(kMaxPaxHeader), current_.data_offset);
      if (!path.empty()) long_name = path;
      SkipRemainder();
      continue;
    }
    const bool regular = type == '0' || type == '\0' || type == '7';
    const bool directory = type == '5';
    std::string raw_name = long_name.empty() ? HeaderName(header) : long_name;
    current_.name = raw_name;
    if (type == 'K' || type == 'g') {  // a long link name, a global pax header: skip
      SkipRemainder();
      continue;
    }
    long_name.clear();
    if (!regular && !directory) {  // links, devices, FIFOs: not data
      SkipRemainder();
      continue;
    }
    // Normalise: no absolute names, no "..", "." and empty components dropped.
    if (raw_name.empty() || raw_name[0] == '/') {
      Fail(header_offset, "member name '" + raw_name + "' is empty or absolute");
    }
    std::string name;
    size_t pos = 0;
    while (pos <= raw_name.size()) {
      size_t slash = raw_name.find('/', pos);
      if (slash == std::string::npos) slash = raw_name.size();
      const std::string part = raw_name.substr(pos, slash - pos);
      if (part == "..") Fail(header_offset, "member name '" + raw_name + "' contains '..'");
      if (!part.empty() && part != ".") name += (name.empty() ? "" : "/") + part;
      pos = slash + 1;
    }
    if (name.empty()) {
      if (regular) Fail(header_offset, "member name '" + raw_name + "' names no file");
      SkipRemainder();
      continue;  // "./", the archive's root
    }
    current_.name = name;
    current_.kind = regular ? TarMember::Kind::kRegularFile : TarMember::Kind::kDirectory;
    *member = current_;
    return true;
  }
}

}  // namespace jigsaw
