#include "net/proto_wire.h"

namespace jigsaw::net {

const char* WireTypeName(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint (0)";
    case WireType::kFixed64:
      return "64-bit (1)";
    case WireType::kLengthDelimited:
      return "length-delimited (2)";
    case WireType::kStartGroup:
      return "start-group (3)";
    case WireType::kEndGroup:
      return "end-group (4)";
    case WireType::kFixed32:
      return "32-bit (5)";
  }
  return "?";
}

WireError::WireError(size_t offset, const std::string& message)
    : std::runtime_error(message), offset_(offset) {}

void WireReader::Fail(const std::string& message) const { throw WireError(offset(), message); }

void WireReader::FailAtKey(const std::string& message) const {
  throw WireError(base_ + key_pos_, message);
}

uint64_t WireReader::ReadVarint() {
  const size_t start = offset();
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= bytes_.size()) {
      throw WireError(start,
                      "truncated varint (the data ends inside it); expected a last byte "
                      "below 0x80");
    }
    const uint8_t byte = static_cast<uint8_t>(bytes_[pos_++]);
    if (shift == 63 && byte > 1) throw WireError(start, "varint longer than 64 bits");
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  throw WireError(start, "varint longer than 10 bytes");
}

uint64_t WireReader::ReadFixed64() {
  if (bytes_.size() - pos_ < 8) Fail("truncated 64-bit value");
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= uint64_t{static_cast<uint8_t>(bytes_[pos_ + i])} << (8 * i);
  pos_ += 8;
  return value;
}

uint32_t WireReader::ReadFixed32() {
  if (bytes_.size() - pos_ < 4) Fail("truncated 32-bit value");
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= uint32_t{static_cast<uint8_t>(bytes_[pos_ + i])} << (8 * i);
  pos_ += 4;
  return value;
}

void WireReader::ReadKey(uint32_t* field, WireType* type) {
  key_pos_ = pos_;
  const size_t at = offset();
  const uint64_t key = ReadVarint();
  const uint64_t number = key >> 3;
  const uint64_t wire = key & 7;
  if (number == 0 || number > 536'870'911) {
    throw WireError(at, "field number " + std::to_string(number) + " (expected 1..2^29-1)");
  }
  if (wire != 0 && wire != 1 && wire != 2 && wire != 5) {
    throw WireError(at, "field " + std::to_string(number) + " has wire type " +
                            std::to_string(wire) + ", expected 0, 1, 2 or 5");
  }
  *field = static_cast<uint32_t>(number);
  *type = static_cast<WireType>(wire);
}

WireReader WireReader::ReadLengthDelimited() {
  const uint64_t length = ReadVarint();
  if (length > bytes_.size() - pos_) {
    Fail("length " + std::to_string(length) + " runs past the end of its message (" +
         std::to_string(bytes_.size() - pos_) + " bytes left)");
  }
  WireReader inner(bytes_.substr(pos_, length), base_ + pos_);
  pos_ += length;
  return inner;
}

std::string_view WireReader::ReadBytes() { return ReadLengthDelimited().bytes(); }

void WireReader::Skip(WireType type) {
  switch (type) {
    case WireType::kVarint:
      ReadVarint();
      return;
    case WireType::kFixed64:
      ReadFixed64();
      return;
    case WireType::kLengthDelimited:
      ReadLengthDelimited();
      return;
    case WireType::kFixed32:
      ReadFixed32();
      return;
    default:
      Fail(std::string("cannot skip wire type ") + WireTypeName(type));
  }
}

}  // namespace jigsaw::net
