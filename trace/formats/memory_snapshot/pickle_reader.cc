#include "trace/formats/memory_snapshot/pickle_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

namespace ampscope::pickle {

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kStr: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kList: return "list";
    case Kind::kTuple: return "tuple";
    case Kind::kDict: return "dict";
  }
  return "?";
}

const char* OpcodeName(uint8_t op) {
  switch (op) {
    case '(': return "MARK";
    case '.': return "STOP";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case '2': return "DUP";
    case 'F': return "FLOAT";
    case 'I': return "INT";
    case 'J': return "BININT";
    case 'K': return "BININT1";
    case 'L': return "LONG";
    case 'M': return "BININT2";
    case 'N': return "NONE";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'R': return "REDUCE";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'X': return "BINUNICODE";
    case 'a': return "APPEND";
    case 'b': return "BUILD";
    case 'c': return "GLOBAL";
    case 'd': return "DICT";
    case '}': return "EMPTY_DICT";
    case 'e': return "APPENDS";
    case 'g': return "GET";
    case 'h': return "BINGET";
    case 'i': return "INST";
    case 'j': return "LONG_BINGET";
    case 'l': return "LIST";
    case ']': return "EMPTY_LIST";
    case 'o': return "OBJ";
    case 'p': return "PUT";
    case 'q': return "BINPUT";
    case 'r': return "LONG_BINPUT";
    case 's': return "SETITEM";
    case 't': return "TUPLE";
    case ')': return "EMPTY_TUPLE";
    case 'u': return "SETITEMS";
    case 'G': return "BINFLOAT";
    case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

Items Document::items(const Value& v) const {
  if (!v.is_container()) return {};
  const Container& c = containers_[v.c];
  if (c.items == 0xffffffffu) return {};
  const std::vector<Value>& list = item_lists_[c.items];
  return Items(list.data(), list.size());
}

const Value* Document::Find(const Value& dict, std::string_view key) const {
  if (dict.kind != Kind::kDict) return nullptr;
  Items kv = items(dict);
  for (size_t i = 0; i + 1 < kv.size(); i += 2)
    if (IsStr(kv[i], key)) return &kv[i + 1];
  return nullptr;
}

void Document::Reduce(const Value& v, uint32_t h) {
  if (!v.is_container()) return;
  Container& c = containers_[v.c];
  c.handle = h;
  if (c.items != 0xffffffffu) {
    live_items_ -= item_lists_[c.items].size();
    std::vector<Value>().swap(item_lists_[c.items]);
    free_item_lists_.push_back(c.items);
    c.items = 0xffffffffu;
  }
}

// The machine: Python's Unpickler (Lib/pickle.py, Modules/_pickle.c) restricted to builtin
// values, with the same stack, mark stack and memo.
class Machine {
 public:
  Machine(ByteSource& source, Consumer* consumer) : source_(source), consumer_(consumer) { buf_.resize(kBuffer); }

  StatusOr<Document> Run(PickleStats* stats);

 private:
  static constexpr size_t kBuffer = 1 << 20;
  // The memory budget is checked every kBudgetEvery opcodes: one opcode adds at most one
  // container or value (some 60 bytes) besides its string, which the input itself pays for.
  static constexpr uint64_t kBudgetEvery = 1024;

  // Makes n bytes readable at buf_[pos_]; an error when the input ends first.
  Status Need(size_t n) {
    if (end_ - pos_ >= n) return Status::Ok();
    return Fill(n);
  }
  Status Fill(size_t n);
  uint64_t Offset() const { return base_ + pos_; }
  Status Error(uint64_t at, const std::string& what) const { return Status::Error(fmt::format("byte {}: {}", at, what)); }
  Status Truncated() const { return Error(base_ + end_, "the pickle ends before its STOP opcode (truncated file)"); }
  // The first opcode is not PROTO: a pickle of protocol 0 or 1 (Python writes PROTO from 2 on).
  Status NoProto(uint8_t op) const {
    const char* name = OpcodeName(op);
    return Error(0, fmt::format("the pickle starts with {} (0x{:02x}), not PROTO (0x80): a pickle of protocol 0 or 1, "
                                "or not a pickle; this reader knows protocols 2 to 5 (torch.cuda.memory._dump_snapshot "
                                "writes 4: re-save it with pickle.dump(obj, f, protocol=4))",
                                name != nullptr ? name : "a byte that is no opcode", op));
  }

  uint64_t ReadLE(size_t n) {  // after Need(n)
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(buf_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  // Reads `len` bytes into the text arena (growing as they arrive: the prefix is not trusted).
  StatusOr<Value> ReadText(Kind kind, uint64_t len, uint64_t at);
  StatusOr<Value> ReadLong(uint64_t len);

  // What the document, the stack and the memo hold, in bytes (vector sizes, not capacities).
  uint64_t Held() const {
    constexpr uint64_t kSparseMemoEntry = sizeof(uint64_t) + sizeof(Value) + 4 * sizeof(void*);  // a hash node
    return doc_.containers_.size() * sizeof(Document::Container) +
           doc_.item_lists_.size() * sizeof(std::vector<Value>) +
           (doc_.live_items_ + stack_.size() + memo_.size()) * sizeof(Value) + sparse_memo_.size() * kSparseMemoEntry +
           marks_.size() * sizeof(size_t) + doc_.text_.size();
  }
  Status CheckBudget(uint64_t at) const {
    const uint64_t budget = std::max<uint64_t>(kMemoryFloor, kMemoryPerInputByte * (at + 1));
    const uint64_t held = Held();
    if (held <= budget) return Status::Ok();
    return Error(at, fmt::format("{} containers and {} values would take {} MiB after {} bytes of input, over the "
                                 "reader's budget ({}x the input, at least {} MiB): a flood of containers or memo "
                                 "references, not a memory snapshot",
                                 doc_.containers_.size(), doc_.live_items_ + stack_.size() + memo_.size(), held >> 20,
                                 at, kMemoryPerInputByte, kMemoryFloor >> 20));
  }

  Value NewContainer(Kind kind) {
    Value v;
    v.kind = kind;
    v.c = doc_.containers_.size();
    Document::Container c;
    c.kind = kind;
    if (!doc_.free_item_lists_.empty()) {
      c.items = doc_.free_item_lists_.back();
      doc_.free_item_lists_.pop_back();
    } else {
      c.items = static_cast<uint32_t>(doc_.item_lists_.size());
      doc_.item_lists_.emplace_back();
    }
    doc_.containers_.push_back(c);
    return v;
  }
  std::vector<Value>* ItemsOf(const Value& v) {
    Document::Container& c = doc_.containers_[v.c];
    return c.items == 0xffffffffu ? nullptr : &doc_.item_lists_[c.items];
  }
  // `v` goes into a parent: a container is complete from then on.
  void Complete(const Value& v) {
    if (!v.is_container()) return;
    Document::Container& c = doc_.containers_[v.c];
    if (c.completed) return;
    c.completed = true;
    if (consumer_ != nullptr) consumer_->OnComplete(doc_, v);
  }
  // Moves stack[from..] into the container `target` (list: items; dict: key/value pairs).
  Status AddItems(const Value& target, size_t from, uint64_t at, const char* op);
  // `parent` holds stack[from..]: its depth is one more than its deepest item's (kMaxDepth at most).
  Status Nest(const Value& parent, size_t from, uint64_t at);
  Status PopMark(size_t* mark, uint64_t at, const char* op) {
    if (marks_.empty()) return Error(at, fmt::format("{} without a MARK before it", op));
    *mark = marks_.back();
    marks_.pop_back();
    return Status::Ok();
  }
  Status Memo(uint64_t index, uint64_t at) {
    if (stack_.empty()) return Error(at, "memo store with an empty stack");
    if (index < memo_.size()) {
      memo_[index] = stack_.back();
    } else if (index == memo_.size()) {
      memo_.push_back(stack_.back());
    } else {
      sparse_memo_[index] = stack_.back();
    }
    return Status::Ok();
  }
  Status Get(uint64_t index, uint64_t at) {
    if (index < memo_.size()) {
      stack_.push_back(memo_[index]);
      return Status::Ok();
    }
    auto it = sparse_memo_.find(index);
    if (it == sparse_memo_.end()) return Error(at, fmt::format("memo reference {} to nothing (no value was stored there)", index));
    stack_.push_back(it->second);
    return Status::Ok();
  }
  Status MakeTuple(size_t from, uint64_t at);
  Status PushValue(uint8_t op, uint64_t at, bool* pushed);

  ByteSource& source_;
  Consumer* consumer_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0;  // input offset of buf_[0]
  bool eof_ = false;
  Document doc_;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::vector<Value> memo_;
  std::unordered_map<uint64_t, Value> sparse_memo_;
};

Status Machine::Fill(size_t n) {
  // Keep the unread bytes, then read until n are there or the input ends.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  while (end_ < n && !eof_) {
    StatusOr<size_t> got = source_.Read(buf_.data() + end_, buf_.size() - end_);
    if (!got.ok()) return got.status();
    if (*got == 0) eof_ = true;
    end_ += *got;
  }
  if (end_ < n) return Truncated();
  return Status::Ok();
}

StatusOr<Value> Machine::ReadText(Kind kind, uint64_t len, uint64_t at) {
  if (len > std::numeric_limits<uint32_t>::max())
    return Error(at, fmt::format("a {} of {} bytes (more than 4 GiB)", KindName(kind), len));
  Value v;
  v.kind = kind;
  v.len = static_cast<uint32_t>(len);
  v.off = doc_.text_.size();
  uint64_t left = len;
  while (left > 0) {
    if (pos_ == end_) {
      if (Status s = Fill(1); !s.ok()) return s;
    }
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left, end_ - pos_));
    doc_.text_.append(buf_.data() + pos_, take);
    pos_ += take;
    left -= take;
  }
  return v;
}

StatusOr<Value> Machine::ReadLong(uint64_t len) {
  // Little-endian two's complement of `len` bytes. Beyond 8 bytes the value fits int64 only
  // when the extra bytes are all sign extension; else it is kept saturated and marked big.
  Value v;
  v.kind = Kind::kInt;
  if (len == 0) return v;
  uint64_t low = 0;
  uint8_t last = 0;
  bool high_all_00 = true, high_all_ff = true;  // bytes 8..len-1
  uint64_t i = 0;
  while (i < len) {
    if (pos_ == end_) {
      if (Status s = Fill(1); !s.ok()) return s;
    }
    for (; pos_ < end_ && i < len; ++i) {
      const uint8_t b = static_cast<uint8_t>(buf_[pos_++]);
      if (i < 8) {
        low |= static_cast<uint64_t>(b) << (8 * i);
      } else {
        high_all_00 &= b == 0x00;
        high_all_ff &= b == 0xff;
      }
      last = b;
    }
  }
  const bool negative = (last & 0x80) != 0;
  if (len < 8) {
    if (negative) low |= ~uint64_t{0} << (8 * len);
    v.i = static_cast<int64_t>(low);
    return v;
  }
  const bool bit63 = (low >> 63) != 0;
  const bool fits = bit63 == negative && (len == 8 || (negative ? high_all_ff : high_all_00));
  if (!fits) {
    v.big = true;
    v.i = negative ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    return v;
  }
  v.i = static_cast<int64_t>(low);
  return v;
}

Status Machine::Nest(const Value& parent, size_t from, uint64_t at) {
  Document::Container& p = doc_.containers_[parent.c];
  for (size_t i = from; i < stack_.size(); ++i) {
    const Value& v = stack_[i];
    if (!v.is_container() || v.c == parent.c) continue;  // a container inside itself adds no depth
    const uint32_t depth = doc_.containers_[v.c].depth + 1u;
    if (depth > kMaxDepth)
      return Error(at, fmt::format("containers nested more than {} deep (a memory snapshot nests about 8)", kMaxDepth));
    if (depth > p.depth) p.depth = static_cast<uint16_t>(depth);
  }
  return Status::Ok();
}

Status Machine::AddItems(const Value& target, size_t from, uint64_t at, const char* op) {
  if (target.kind != Kind::kList && target.kind != Kind::kDict)
    return Error(at, fmt::format("{} into a {} (expected a {})", op, KindName(target.kind),
                                 std::strcmp(op, "APPEND") == 0 || std::strcmp(op, "APPENDS") == 0 ? "list" : "dict"));
  const bool dict = target.kind == Kind::kDict;
  if (dict != (std::strcmp(op, "SETITEM") == 0 || std::strcmp(op, "SETITEMS") == 0))
    return Error(at, fmt::format("{} into a {}", op, KindName(target.kind)));
  const size_t n = stack_.size() - from;
  if (dict && n % 2 != 0) return Error(at, fmt::format("{} with an odd number of keys and values ({})", op, n));
  // Python's pickler fills a container before it puts it into its parent; one filled after that
  // (reached again through the memo) is a cyclic or hand-made pickle, and would grow its
  // ancestors' depth and contents after the consumer read them.
  if (n > 0 && doc_.containers_[target.c].completed)
    return Error(at, fmt::format("{} into a {} already put into another container (a cyclic pickle)", op, KindName(target.kind)));
  if (Status s = Nest(target, from, at); !s.ok()) return s;
  for (size_t i = from; i < stack_.size(); ++i) {
    if (stack_[i].is_container() && stack_[i].c == target.c) continue;  // a container inside itself: not completed by that
    Complete(stack_[i]);
  }
  std::vector<Value>* items = ItemsOf(target);
  if (items != nullptr) {
    items->insert(items->end(), stack_.begin() + static_cast<std::ptrdiff_t>(from), stack_.end());
    doc_.live_items_ += n;
  }
  stack_.resize(from);
  return Status::Ok();
}

Status Machine::MakeTuple(size_t from, uint64_t at) {
  Value t = NewContainer(Kind::kTuple);
  if (Status s = Nest(t, from, at); !s.ok()) return s;
  for (size_t i = from; i < stack_.size(); ++i) Complete(stack_[i]);
  ItemsOf(t)->assign(stack_.begin() + static_cast<std::ptrdiff_t>(from), stack_.end());
  doc_.live_items_ += stack_.size() - from;
  stack_.resize(from);
  stack_.push_back(t);
  return Status::Ok();
}

// The opcodes that push one scalar, str or bytes value; *pushed false for any other opcode.
Status Machine::PushValue(uint8_t op, uint64_t at, bool* pushed) {
  *pushed = true;
  switch (op) {
    case 'N': stack_.push_back(Value{}); break;
    case 0x88:
    case 0x89: {
      Value v;
      v.kind = Kind::kBool;
      v.i = op == 0x88 ? 1 : 0;
      stack_.push_back(v);
      break;
    }
    case 'J':
    case 'K':
    case 'M': {  // BININT (int32), BININT1 (uint8), BININT2 (uint16)
      const size_t n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
      if (Status s = Need(n); !s.ok()) return s;
      Value v;
      v.kind = Kind::kInt;
      const uint64_t raw = ReadLE(n);
      v.i = op == 'J' ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(raw))) : static_cast<int64_t>(raw);
      stack_.push_back(v);
      break;
    }
    case 0x8a:
    case 0x8b: {  // LONG1, LONG4
      const size_t n = op == 0x8a ? 1 : 4;
      if (Status s = Need(n); !s.ok()) return s;
      uint64_t len = ReadLE(n);
      if (op == 0x8b && (len & 0x80000000u)) return Error(at, "LONG4 with a negative length");
      StatusOr<Value> v = ReadLong(len);
      if (!v.ok()) return v.status();
      stack_.push_back(*v);
      break;
    }
    case 'G': {  // BINFLOAT: big-endian IEEE 754 double
      if (Status s = Need(8); !s.ok()) return s;
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(buf_[pos_ + k]);
      pos_ += 8;
      Value v;
      v.kind = Kind::kFloat;
      std::memcpy(&v.f, &bits, sizeof(double));
      stack_.push_back(v);
      break;
    }
    case 0x8c:  // SHORT_BINUNICODE
    case 'X':   // BINUNICODE
    case 0x8d:  // BINUNICODE8
    case 'U':   // SHORT_BINSTRING (Python 2 str: read as bytes)
    case 'T':   // BINSTRING
    case 'C':   // SHORT_BINBYTES
    case 'B':   // BINBYTES
    case 0x8e:  // BINBYTES8
    case 0x96: {  // BYTEARRAY8
      const size_t n = (op == 0x8c || op == 'U' || op == 'C') ? 1 : (op == 'X' || op == 'T' || op == 'B') ? 4 : 8;
      if (Status s = Need(n); !s.ok()) return s;
      const uint64_t len = ReadLE(n);
      if (op == 'T' && (len & 0x80000000u)) return Error(at, "BINSTRING with a negative length");
      const Kind kind = (op == 0x8c || op == 'X' || op == 0x8d) ? Kind::kStr : Kind::kBytes;
      StatusOr<Value> v = ReadText(kind, len, at);
      if (!v.ok()) return v.status();
      stack_.push_back(*v);
      break;
    }
    default: *pushed = false;
  }
  return Status::Ok();
}

StatusOr<Document> Machine::Run(PickleStats* stats) {
  uint64_t opcodes = 0;
  int protocol = 0;
  for (;;) {
    if (Status s = Need(1); !s.ok()) return s;
    const uint64_t at = Offset();
    const uint8_t op = static_cast<uint8_t>(buf_[pos_++]);
    if (opcodes++ == 0 && op != 0x80) return NoProto(op);
    if (opcodes % kBudgetEvery == 0) {
      if (Status s = CheckBudget(at); !s.ok()) return s;
    }
    switch (op) {
      case 0x80: {  // PROTO
        if (Status s = Need(1); !s.ok()) return s;
        protocol = static_cast<uint8_t>(buf_[pos_++]);
        if (protocol < 2 || protocol > 5)
          return Error(at, fmt::format("pickle protocol {} (this reader knows 2 to 5; torch.cuda.memory._dump_snapshot "
                                       "writes 4)", protocol));
        break;
      }
      case 0x95:  // FRAME: a length hint for buffering; the bytes that follow are read as usual
        if (Status s = Need(8); !s.ok()) return s;
        pos_ += 8;
        break;
      case '.': {  // STOP
        if (stack_.empty()) return Error(at, "STOP with an empty stack");
        if (stack_.size() > 1 || !marks_.empty())
          return Error(at, fmt::format("STOP leaves {} more value{} and {} open MARK{} behind (a pickler leaves one value)",
                                       stack_.size() - 1, stack_.size() == 2 ? "" : "s", marks_.size(),
                                       marks_.size() == 1 ? "" : "s"));
        if (Status s = CheckBudget(at); !s.ok()) return s;
        doc_.root_ = stack_.back();
        Complete(doc_.root_);
        if (stats != nullptr) {
          stats->protocol = protocol;
          stats->bytes = at + 1;
          stats->opcodes = opcodes;
        }
        return std::move(doc_);
      }
      case '(': marks_.push_back(stack_.size()); break;
      case '0':  // POP
        if (!stack_.empty() && (marks_.empty() || marks_.back() < stack_.size())) {
          stack_.pop_back();
        } else if (!marks_.empty() && marks_.back() == stack_.size()) {
          marks_.pop_back();  // POP of a MARK (as Python's _pickle)
        } else {
          return Error(at, "POP with an empty stack");
        }
        break;
      case '1': {  // POP_MARK
        size_t m = 0;
        if (Status s = PopMark(&m, at, "POP_MARK"); !s.ok()) return s;
        stack_.resize(m);
        break;
      }
      case '2':  // DUP
        if (stack_.empty()) return Error(at, "DUP with an empty stack");
        stack_.push_back(stack_.back());
        break;
      case '}': stack_.push_back(NewContainer(Kind::kDict)); break;
      case ']': stack_.push_back(NewContainer(Kind::kList)); break;
      case ')': {
        Value t = NewContainer(Kind::kTuple);
        stack_.push_back(t);
        break;
      }
      case 't': {  // TUPLE
        size_t m = 0;
        if (Status s = PopMark(&m, at, "TUPLE"); !s.ok()) return s;
        if (Status s = MakeTuple(m, at); !s.ok()) return s;
        break;
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const size_t n = op - 0x84u;
        if (stack_.size() < n || (!marks_.empty() && marks_.back() > stack_.size() - n))
          return Error(at, fmt::format("{} with fewer than {} values on the stack", OpcodeName(op), n));
        if (Status s = MakeTuple(stack_.size() - n, at); !s.ok()) return s;
        break;
      }
      case 'l':
      case 'd': {  // LIST, DICT: MARK items LIST
        size_t m = 0;
        if (Status s = PopMark(&m, at, OpcodeName(op)); !s.ok()) return s;
        Value c = NewContainer(op == 'l' ? Kind::kList : Kind::kDict);
        if (Status s = AddItems(c, m, at, op == 'l' ? "APPENDS" : "SETITEMS"); !s.ok()) return s;
        stack_.push_back(c);
        break;
      }
      case 'a':
      case 's': {  // APPEND: list item; SETITEM: dict key value
        const size_t n = op == 'a' ? 1 : 2;
        if (stack_.size() < n + 1 || (!marks_.empty() && marks_.back() > stack_.size() - n - 1))
          return Error(at, fmt::format("{} with too few values on the stack", OpcodeName(op)));
        const Value target = stack_[stack_.size() - n - 1];
        if (Status s = AddItems(target, stack_.size() - n, at, OpcodeName(op)); !s.ok()) return s;
        break;
      }
      case 'e':
      case 'u': {  // APPENDS, SETITEMS: target MARK items
        size_t m = 0;
        if (Status s = PopMark(&m, at, OpcodeName(op)); !s.ok()) return s;
        if (m == 0 || (!marks_.empty() && marks_.back() > m - 1))
          return Error(at, fmt::format("{} with no container before its MARK", OpcodeName(op)));
        const Value target = stack_[m - 1];
        if (Status s = AddItems(target, m, at, OpcodeName(op)); !s.ok()) return s;
        break;
      }
      case 'q':
      case 'r': {  // BINPUT, LONG_BINPUT
        const size_t n = op == 'q' ? 1 : 4;
        if (Status s = Need(n); !s.ok()) return s;
        if (Status s = Memo(ReadLE(n), at); !s.ok()) return s;
        break;
      }
      case 0x94:  // MEMOIZE
        if (Status s = Memo(memo_.size(), at); !s.ok()) return s;
        break;
      case 'h':
      case 'j': {  // BINGET, LONG_BINGET
        const size_t n = op == 'h' ? 1 : 4;
        if (Status s = Need(n); !s.ok()) return s;
        if (Status s = Get(ReadLE(n), at); !s.ok()) return s;
        break;
      }
      default: {
        bool pushed = false;
        if (Status st = PushValue(op, at, &pushed); !st.ok()) return st;
        if (pushed) break;
        const char* name = OpcodeName(op);
        if (name == nullptr) return Error(at, fmt::format("unknown pickle opcode 0x{:02x}", op));
        return Error(at, fmt::format("pickle opcode {} (0x{:02x}) is not allowed: a memory snapshot holds only dicts, "
                                     "lists, tuples, strings, bytes, numbers, booleans and None, and ampscope builds no "
                                     "other object",
                                     name, op));
      }
    }
  }
}

StatusOr<Document> ReadPickle(ByteSource& source, Consumer* consumer, PickleStats* stats) {
  Machine m(source, consumer);
  return m.Run(stats);
}

}  // namespace ampscope::pickle
