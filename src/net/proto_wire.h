// The protocol-buffers wire format, read by hand (no libprotobuf): varints, fixed 32/64-bit
// values, length-delimited fields and the varint-delimited message streams that Chakra execution
// traces use (chakra_reader.h). Every read is bounds-checked: a truncated varint, a length past
// the end of its message or an unknown wire type throws WireError with the byte offset from the
// start of the stream; the caller adds the file and the node.
#ifndef JIGSAW_NET_PROTO_WIRE_H_
#define JIGSAW_NET_PROTO_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace jigsaw::net {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,  // deprecated groups: refused
  kEndGroup = 4,
  kFixed32 = 5,
};
const char* WireTypeName(WireType type);

class WireError : public std::runtime_error {
 public:
  WireError(size_t offset, const std::string& message);
  size_t offset() const { return offset_; }

 private:
  size_t offset_;
};

// A view of one message's bytes; `base` is the offset of its first byte in the whole stream.
class WireReader {
 public:
  WireReader(std::string_view bytes, size_t base) : bytes_(bytes), base_(base) {}

  bool done() const { return pos_ >= bytes_.size(); }
  size_t offset() const { return base_ + pos_; }  // in the whole stream

  // A field's key: number (>= 1) and wire type (0, 1, 2 or 5; groups are refused).
  void ReadKey(uint32_t* field, WireType* type);
  uint64_t ReadVarint();
  uint64_t ReadFixed64();
  uint32_t ReadFixed32();
  // The bytes of a length-delimited field, as a reader positioned on them.
  WireReader ReadLengthDelimited();
  std::string_view ReadBytes();
  // Skips one value of `type` (an unknown field).
  void Skip(WireType type);
  // Throws WireError at the current offset, or at the last key read (its field's start).
  [[noreturn]] void Fail(const std::string& message) const;
  [[noreturn]] void FailAtKey(const std::string& message) const;

  std::string_view bytes() const { return bytes_; }

 private:
  std::string_view bytes_;
  size_t base_;
  size_t pos_ = 0;
  size_t key_pos_ = 0;
};

// zigzag decoding of sint32 / sint64.
inline int64_t ZigZagDecode(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_PROTO_WIRE_H_
