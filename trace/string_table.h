// Interned strings. Ids are dense, stable for the life of the table, and 0 is the empty string.
//
// Memory: the text lives in an arena of large blocks (no allocation per string) and the index
// is an open-addressing table of 8-byte slots, so a string costs its bytes plus ~32 bytes
// (a std::deque<std::string> + std::unordered_map cost ~130 bytes each and fragmented the heap).
//
// Text budget: a trace whose names are all distinct (issue 16: 2 M events with unique 1 KB
// names) would keep a copy of every name. Once the table holds `long_text_budget` bytes of text,
// each *new* string longer than kCappedBytes is stored capped: its first bytes (cut at a UTF-8
// boundary), "...#" and 16 hex digits of a hash of the whole text, kCappedBytes in all, so
// distinct names stay distinct. A string stored in full before the budget ran out stays
// available in full. The default budget is unlimited; readers set one from the input size and
// report capped_count() as a diagnostic. Which strings are capped depends only on the order in
// which new strings are first interned, so a reader that interns the same strings in the same
// order (sequentially, or merging pieces in input order) gets the same table.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

using StringId = uint32_t;
inline constexpr StringId kNoString = 0;  // the empty string

class StringTable {
 public:
  // A capped string is this long: room for a readable prefix, the marker and the hash.
  static constexpr size_t kCappedBytes = 128;

  StringTable() { Insert(std::string_view(), Hash(std::string_view())); }
  StringTable(const StringTable& other) { *this = other; }
  StringTable& operator=(const StringTable& other) {
    if (this == &other) return *this;
    StringTable copy;
    copy.Reserve(other.size());
    for (StringId id = 1; id < other.size(); ++id) copy.InternStored(other.get(id));
    copy.long_text_budget_ = other.long_text_budget_;
    copy.capped_ = other.capped_;
    *this = std::move(copy);
    return *this;
  }
  // The moved-from table is left empty (just ""), never sharing the arena.
  StringTable(StringTable&& other) noexcept { MoveFrom(other); }
  StringTable& operator=(StringTable&& other) noexcept {
    if (this != &other) MoveFrom(other);
    return *this;
  }

  StringId Intern(std::string_view s) {
    const uint64_t h = Hash(s);
    StringId id;
    if (Lookup(s, h, &id)) return id;
    if (s.size() > kCappedBytes && text_bytes_ >= long_text_budget_) {
      const std::string capped = Capped(s, h);
      const uint64_t ch = Hash(capped);
      if (Lookup(capped, ch, &id)) return id;
      ++capped_;
      return Insert(capped, ch);
    }
    return Insert(s, h);
  }
  // Returns kNoString's "" for an unknown id rather than crashing: ids come from files.
  std::string_view get(StringId id) const { return id < views_.size() ? views_[id] : std::string_view(); }
  // Looks up without inserting; returns false if absent (a capped string is found by its
  // capped text only).
  bool Find(std::string_view s, StringId* id) const { return Lookup(s, Hash(s), id); }
  size_t size() const { return views_.size(); }

  // See the header comment. Bytes of text after which new long strings are capped.
  void set_long_text_budget(uint64_t bytes) { long_text_budget_ = bytes; }
  // How many distinct strings were stored capped.
  uint64_t capped_count() const { return capped_; }
  // Bytes of text stored (capped strings count their capped length).
  uint64_t text_bytes() const { return text_bytes_; }
  void Reserve(size_t strings) {
    views_.reserve(strings);
    if (strings * 2 > slots_.size()) Rehash(strings * 2);
  }

 private:
  void MoveFrom(StringTable& o) noexcept {
    views_ = std::move(o.views_);
    slots_ = std::move(o.slots_);
    blocks_ = std::move(o.blocks_);
    block_ = o.block_;
    block_left_ = o.block_left_;
    text_bytes_ = o.text_bytes_;
    long_text_budget_ = o.long_text_budget_;
    capped_ = o.capped_;
    o.views_.clear();
    o.slots_.clear();
    o.blocks_.clear();
    o.block_ = nullptr;
    o.block_left_ = 0;
    o.text_bytes_ = 0;
    o.capped_ = 0;
    o.views_.push_back(std::string_view());
    o.Rehash(64);
  }

  struct Slot {
    StringId id = kEmptySlot;
    uint32_t hash_high = 0;  // upper half of the hash: most mismatches never touch the text
  };
  static constexpr StringId kEmptySlot = std::numeric_limits<StringId>::max();
  static constexpr size_t kBlockBytes = size_t{1} << 20;

  static uint64_t Hash(std::string_view s) { return std::hash<std::string_view>()(s) * 0x9E3779B97F4A7C15ull; }

  bool Lookup(std::string_view s, uint64_t h, StringId* id) const {
    if (slots_.empty()) return false;
    const size_t mask = slots_.size() - 1;
    const uint32_t high = static_cast<uint32_t>(h >> 32);
    for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id == kEmptySlot) return false;
      if (slot.hash_high == high) {
        const std::string_view stored = views_[slot.id];
        if (stored.size() == s.size() && (s.empty() || std::memcmp(stored.data(), s.data(), s.size()) == 0)) {
          *id = slot.id;
          return true;
        }
      }
    }
  }

  // Copies `s` into the arena and indexes it (it is known to be absent).
  StringId Insert(std::string_view s, uint64_t h) {
    const StringId id = static_cast<StringId>(views_.size());
    views_.push_back(Store(s));
    text_bytes_ += s.size();
    if (views_.size() * 2 > slots_.size()) {
      Rehash(std::max<size_t>(64, slots_.size() * 2));  // places every id, this one too
    } else {
      Place(id, h);
    }
    return id;
  }
  // For copies: the text is already final (never re-capped).
  void InternStored(std::string_view s) {
    StringId id;
    const uint64_t h = Hash(s);
    if (!Lookup(s, h, &id)) Insert(s, h);
  }

  std::string_view Store(std::string_view s) {
    if (s.empty()) return std::string_view();
    char* dst;
    if (s.size() > kBlockBytes / 4) {  // a big string gets a block of its own
      blocks_.emplace_back(new char[s.size()]);
      dst = blocks_.back().get();
    } else {
      if (s.size() > block_left_) {
        blocks_.emplace_back(new char[kBlockBytes]);
        block_ = blocks_.back().get();
        block_left_ = kBlockBytes;
      }
      dst = block_;
      block_ += s.size();
      block_left_ -= s.size();
    }
    if (!s.empty()) std::memcpy(dst, s.data(), s.size());  // s.data() may be null when empty
    return std::string_view(dst, s.size());
  }

  void Place(StringId id, uint64_t h) {
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>(h) & mask;
    while (slots_[i].id != kEmptySlot) i = (i + 1) & mask;
    slots_[i] = Slot{id, static_cast<uint32_t>(h >> 32)};
  }

  void Rehash(size_t want) {
    size_t n = 64;
    while (n < want) n *= 2;
    slots_.assign(n, Slot{});
    for (StringId id = 0; id < views_.size(); ++id) Place(id, Hash(views_[id]));
  }

  static std::string Capped(std::string_view s, uint64_t h) {
    static constexpr char kHex[] = "0123456789abcdef";
    constexpr size_t kSuffix = 4 + 16;  // "...#" + hash
    size_t keep = kCappedBytes - kSuffix;
    // Do not cut a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;
    std::string out(s.substr(0, keep));
    out += "...#";
    for (int shift = 60; shift >= 0; shift -= 4) out += kHex[(h >> shift) & 0xF];
    return out;
  }

  std::vector<std::string_view> views_;  // by id; point into blocks_
  std::vector<Slot> slots_;               // power-of-two size, at most half full
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_ = nullptr;  // free space of the block being filled
  size_t block_left_ = 0;
  uint64_t text_bytes_ = 0;
  uint64_t long_text_budget_ = std::numeric_limits<uint64_t>::max();
  uint64_t capped_ = 0;
};

}  // namespace ampscope
