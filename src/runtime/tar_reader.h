// Streaming reader of (optionally gzip-compressed) tar archives, for reading data sets in place.
//
// TarReader walks the members in archive order without extracting anything. It understands POSIX
// ustar headers (name + prefix), old GNU headers, GNU long names ('L') and the "path" record of
// pax extended headers ('x'); other member kinds (links, devices, global pax headers) are skipped
// with their data. Every header's checksum is verified and sizes are parsed from octal (or GNU
// base-256); a size is never trusted beyond the data actually present, so a corrupt header cannot
// make the reader allocate more than it reads. Names are normalised (leading "./" dropped, a
// directory's trailing "/" dropped); an absolute name or a ".." component is refused. Errors throw
// InputError(path, 0, "byte N: ...") where N is the offset in the uncompressed tar stream.
#ifndef JIGSAW_RUNTIME_TAR_READER_H_
#define JIGSAW_RUNTIME_TAR_READER_H_

#include <cstdint>
#include <string>

namespace jigsaw {

struct TarMember {
  enum class Kind { kRegularFile, kDirectory };
  std::string name;
  Kind kind = Kind::kRegularFile;
  uint64_t size = 0;
  uint64_t header_offset = 0;  // of the member's own header, after any long-name/pax headers
  uint64_t data_offset = 0;
};

class TarReader {
 public:
  // gzip-compressed or plain tar (zlib reads both); throws InputError if it cannot be opened.
  explicit TarReader(const std::string& path);
  ~TarReader();
  TarReader(const TarReader&) = delete;
  TarReader& operator=(const TarReader&) = delete;

  // Advances to the next regular file or directory, skipping whatever of the previous member's
  // data was not read. Returns false at the end-of-archive marker, after reading on to the end
  // of the file so that zlib verifies the gzip trailer; an archive that ends without the marker
  // is truncated (error).
  bool Next(TarMember* member);
  // The current member's data; errors if it is larger than `max_bytes` or truncated. Once per
  // member.
  std::string ReadData(uint64_t max_bytes);

  [[noreturn]] void Fail(uint64_t offset, const std::string& message) const;
  const std::string& path() const { return path_; }

 private:
  // Reads up to `n` bytes; fewer only at the end of the data.
  size_t Read(char* buffer, size_t n);
  void Skip(uint64_t n);
  void SkipRemainder();
  // Reads one 512-byte block; false at a clean end of data.
  bool ReadBlock(char* block);
  std::string ReadSpecialData(const TarMember& member, uint64_t max_bytes);

  std::string path_;
  void* file_;  // gzFile, kept out of the header
  uint64_t offset_ = 0;
  TarMember current_;
  uint64_t unread_ = 0;   // data bytes of the current member not yet read
  uint64_t padding_ = 0;  // zero bytes after them up to the next 512-byte boundary
  bool ended_ = false;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_TAR_READER_H_
