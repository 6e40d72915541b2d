// libFuzzer custom mutator for the .amptrace target. Every header and chunk carries a CRC-32,
// so almost every byte flip of libFuzzer's own mutators ends at a checksum mismatch and never
// reaches the record decoding behind it. After the usual mutation this recomputes the CRCs
// of the header and of every chunk whose framing is still walkable, as a writer would; one
// mutation in eight keeps its broken checksums so the mismatch paths are fuzzed too.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "trace/formats/amptrace/amptrace_format.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

void FixChecksums(uint8_t* data, size_t size) {
  using namespace ampscope;
  if (size < sizeof(AmpFileHeader)) return;
  AmpFileHeader header;
  std::memcpy(&header, data, sizeof(header));
  if (std::memcmp(header.magic, kAmptraceMagic, sizeof(kAmptraceMagic)) != 0) return;
  if (header.header_bytes >= sizeof(AmpFileHeader) && header.header_bytes <= size) {
    std::memset(data + offsetof(AmpFileHeader, header_crc32), 0, sizeof(uint32_t));
    const uint32_t crc = AmptraceCrc32(data, header.header_bytes);
    std::memcpy(data + offsetof(AmpFileHeader, header_crc32), &crc, sizeof(crc));
  }
  size_t offset = header.header_bytes;
  while (offset >= sizeof(AmpFileHeader) && size - offset >= sizeof(AmpChunkHeader) && offset < size) {
    AmpChunkHeader h;
    std::memcpy(&h, data + offset, sizeof(h));
    if (h.magic != kAmptraceChunkMagic || h.payload_bytes > size - offset - sizeof(h)) return;
    h.payload_crc32 = AmptraceCrc32(data + offset + sizeof(h), h.payload_bytes);
    h.header_crc32 = AmptraceCrc32(&h, offsetof(AmpChunkHeader, header_crc32));
    std::memcpy(data + offset, &h, sizeof(h));
    offset += sizeof(h) + h.payload_bytes;
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 8 != 0) FixChecksums(data, size);
  return size;
}
