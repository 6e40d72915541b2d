// A reader of Python pickles that holds builtin values only: dict, list, tuple, str, bytes, int,
// float, bool and None (what torch.cuda.memory._dump_snapshot writes, protocols 2 to 5).
//
// It never constructs an object: GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ,
// PERSID, extension codes, out-of-band buffers and sets are refused, as is every opcode it does
// not know, with one line naming the opcode and its byte offset. Memory is linear in the input:
// a memo reference (GET) pushes a reference to the value already built, never a copy, so a
// pickle that refers to one list a million times costs a million references, not a million
// lists; a length prefix is never trusted for an allocation (strings grow as their bytes
// arrive). The machine is a loop with no recursion, so nesting depth costs no stack.
//
// Hostile shapes are refused, each with one line and the byte offset:
//  - the first opcode is not PROTO, or PROTO names a protocol other than 2 to 5;
//  - a STOP that leaves other values or open MARKs behind (a pickler leaves its one value);
//  - containers nested more than kMaxDepth deep (a snapshot nests about 8: root, segments,
//    segment, blocks, block, history, entry, frames, frame);
//  - items put into a container after it was put into another (reached again through the memo:
//    Python's pickler fills each container first, so only a cyclic or hand-made pickle does it);
//  - more held in memory than kMemoryPerInputByte times the bytes read so far (at least
//    kMemoryFloor): containers, values, stack, memo and strings, counted by their sizes. One
//    input byte can make a container (EMPTY_LIST, ~56 bytes here) or a reference (BINGET, 16),
//    so a file of empty lists or memo references would otherwise cost tens of times its size.
//
// A consumer may shrink what is kept: each container is handed to OnComplete once, when it is
// put into its parent (or at STOP for the root), and the consumer may then Reduce it to a
// handle of its own, which frees its items. The memory snapshot reader turns every block,
// event and frame list into a typed row this way, so the document never holds the whole file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "trace/io/input_stream.h"

namespace ampscope::pickle {

inline constexpr uint32_t kMaxDepth = 64;                    // containers inside containers
inline constexpr uint64_t kMemoryPerInputByte = 4;           // held bytes per input byte read
inline constexpr uint64_t kMemoryFloor = uint64_t{16} << 20;  // the budget of a small input

enum class Kind : uint8_t { kNone, kBool, kInt, kFloat, kStr, kBytes, kList, kTuple, kDict };
const char* KindName(Kind k);  // "None" | "bool" | "int" | "float" | "str" | "bytes" | "list" | "tuple" | "dict"

// One value: scalars inline, str/bytes as a span of the document's text, containers by index.
struct Value {
  Kind kind = Kind::kNone;
  bool big = false;   // an int that does not fit int64: `i` is saturated
  uint32_t len = 0;   // str/bytes: length in bytes
  union {
    int64_t i = 0;    // bool (0/1), int
    double f;         // float
    uint64_t off;     // str/bytes: offset into the document's text
    uint64_t c;       // list/tuple/dict: container index
  };
  bool is_container() const { return kind == Kind::kList || kind == Kind::kTuple || kind == Kind::kDict; }
};

// A view of a container's items (C++17: no std::span).
class Items {
 public:
  Items() = default;
  Items(const Value* data, size_t size) : data_(data), size_(size) {}
  const Value* begin() const { return data_; }
  const Value* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Value& operator[](size_t i) const { return data_[i]; }
  const Value& front() const { return data_[0]; }

 private:
  const Value* data_ = nullptr;
  size_t size_ = 0;
};

class Document {
 public:
  static constexpr uint32_t kNoHandle = 0xffffffffu;

  const Value& root() const { return root_; }
  std::string_view str(const Value& v) const {
    return (v.kind == Kind::kStr || v.kind == Kind::kBytes) ? std::string_view(text_).substr(v.off, v.len) : std::string_view();
  }
  bool IsStr(const Value& v, std::string_view s) const { return v.kind == Kind::kStr && str(v) == s; }
  // List and tuple items; a dict's keys and values interleaved (k0, v0, k1, v1, ...). Empty for a
  // reduced container.
  Items items(const Value& v) const;
  // The value of `key` (a str key) in a dict, or nullptr (also for a reduced dict).
  const Value* Find(const Value& dict, std::string_view key) const;
  // The consumer's handle of a reduced container, else kNoHandle.
  uint32_t handle(const Value& v) const { return v.is_container() ? containers_[v.c].handle : kNoHandle; }

  // Frees the container's items and remembers `handle` in their place (OnComplete's use).
  void Reduce(const Value& v, uint32_t handle);
  size_t containers() const { return containers_.size(); }

 private:
  friend class Machine;
  struct Container {
    Kind kind = Kind::kList;
    bool completed = false;
    uint16_t depth = 1;             // 1 + its deepest item's depth (an empty container: 1)
    uint32_t items = 0xffffffffu;  // index into item_lists_ (0xffffffff: none)
    uint32_t handle = kNoHandle;
  };
  Value root_;
  std::string text_;                          // every str/bytes value, back to back
  std::vector<Container> containers_;
  std::vector<std::vector<Value>> item_lists_;  // the items of containers not reduced
  std::vector<uint32_t> free_item_lists_;       // slots of item_lists_ freed by Reduce
  uint64_t live_items_ = 0;                     // items in item_lists_, all containers together
};

class Consumer {
 public:
  virtual ~Consumer() = default;
  // `v` (a container) is complete: it was just put into a parent, or it is the root at STOP.
  // Called once per container. May call doc.Reduce(v, handle).
  virtual void OnComplete(Document& doc, const Value& v) = 0;
};

struct PickleStats {
  int protocol = 0;       // the PROTO opcode's argument (0: none)
  uint64_t bytes = 0;     // bytes read up to and including STOP
  uint64_t opcodes = 0;
};

// Reads one pickle from `source`. Errors are one line "byte N: what" (the caller prefixes the
// file name): a refused or unknown opcode (named, with its code), a truncated input, a memo
// reference to nothing, a stack or mark underflow, a value of the wrong type for an opcode, and
// the hostile shapes above (no PROTO, leftovers at STOP, too deep, a cyclic fill, over the
// memory budget).
StatusOr<Document> ReadPickle(ByteSource& source, Consumer* consumer, PickleStats* stats = nullptr);

// The name of a pickle opcode ("GLOBAL", "BINGET", ...), or nullptr for a byte that is none.
const char* OpcodeName(uint8_t op);

}  // namespace ampscope::pickle
