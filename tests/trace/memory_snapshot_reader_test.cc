// The pickle reader and the memory snapshot reader: hand-written pickles (each opcode's byte
// written out with a comment), the hostile inputs it must refuse with one line naming the opcode
// or the problem and the byte offset, and the two shared snapshots against PyTorch's segsum.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "support/test_support.h"
#include "trace/formats/memory_snapshot/memory_snapshot.h"
#include "trace/formats/memory_snapshot/pickle_reader.h"
#include "trace/reader.h"

namespace ampscope {
namespace memory_snapshot_reader_test {
namespace {

using namespace std::string_literals;

// Appends pickle opcodes byte by byte (Lib/pickletools.py documents each one).
struct Pickle {
  std::string b;
  Pickle& op(char c) {
    b.push_back(c);
    return *this;
  }
  Pickle& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  Pickle& proto(int v) { return op('\x80').le(v, 1); }                    // PROTO <version>
  Pickle& dict() { return op('}'); }                                     // EMPTY_DICT
  Pickle& list() { return op(']'); }                                     // EMPTY_LIST
  Pickle& memoize() { return op('\x94'); }                               // MEMOIZE: memo[len(memo)] = top
  Pickle& mark() { return op('('); }                                     // MARK
  Pickle& setitems() { return op('u'); }                                 // SETITEMS: dict below the mark gets k/v pairs
  Pickle& appends() { return op('e'); }                                  // APPENDS: list below the mark gets the items
  Pickle& append() { return op('a'); }                                   // APPEND: one item into the list below it
  Pickle& str(const std::string& s) { return op('\x8c').le(s.size(), 1).raw(s); }  // SHORT_BINUNICODE <len:1> <utf8>
  Pickle& raw(const std::string& s) {
    b += s;
    return *this;
  }
  Pickle& i1(uint8_t v) { return op('K').le(v, 1); }                     // BININT1 <uint8>
  Pickle& i2(uint16_t v) { return op('M').le(v, 2); }                    // BININT2 <uint16>
  Pickle& i4(int32_t v) { return op('J').le(static_cast<uint32_t>(v), 4); }  // BININT <int32>
  Pickle& long1(int64_t v, int n) { return op('\x8a').le(n, 1).le(static_cast<uint64_t>(v), n); }  // LONG1 <len> <two's complement>
  Pickle& yes() { return op('\x88'); }                                   // NEWTRUE
  Pickle& no() { return op('\x89'); }                                    // NEWFALSE
  Pickle& get(uint8_t i) { return op('h').le(i, 1); }                    // BINGET <memo index:1>
  Pickle& tuple2() { return op('\x86'); }                                // TUPLE2: the two values on top
  Pickle& stop() { return op('.'); }                                     // STOP
  // A str key followed by an int value of the smallest opcode that holds it.
  Pickle& kv(const std::string& k, int64_t v) {
    str(k);
    if (v >= 0 && v < 256) return i1(static_cast<uint8_t>(v));
    if (v >= 0 && v < 65536) return i2(static_cast<uint16_t>(v));
    if (v >= INT32_MIN && v <= INT32_MAX) return i4(static_cast<int32_t>(v));
    return long1(v, 8);
  }
};

StatusOr<MemorySnapshot> Read(const std::string& bytes) { return ReadMemorySnapshotBytes(bytes, "hand.pickle"); }

// A snapshot of 2 segments (other names and sizes than the shared ones):
//   seg A, large, 6 MiB at 0x7f0000000000: [active 2 MiB asked 2,000,000][inactive 1 MiB][active 3 MiB asked 3,000,000]
//   seg B, small, 2 MiB at 0x7f0000800000: [inactive 2 MiB]
// and a device trace: segment_alloc A, alloc x (2,000,000, stack F1), alloc y (1,048,576, stack F2
// under at::autocast::cached_cast), alloc z (3,000,000, stack F1 again by memo), free y, segment_alloc B, oom.
std::string HandSnapshot() {
  Pickle p;
  p.proto(4).dict().memoize();                 // memo 0: root
  p.mark().str("segments").memoize();          // memo 1
  p.list().memoize();                          // memo 2: segments
  p.mark();
  auto block = [&](uint64_t addr, int64_t size, int64_t requested, const char* state) {
    p.dict().mark().kv("address", static_cast<int64_t>(addr)).kv("size", size).kv("requested_size", requested);
    p.str("state").str(state).str("frames").list().setitems();
  };
  // seg A
  p.dict().mark().kv("device", 0).kv("address", 0x7f0000000000).kv("total_size", 6291456).kv("stream", 0);
  p.str("segment_type").str("large").str("segment_pool_id").i1(0).i1(0).tuple2();
  p.str("is_expandable").no().str("blocks").list().mark();
  block(0x7f0000000000, 2097152, 2000000, "active_allocated");
  block(0x7f0000200000, 1048576, 1048576, "inactive");
  block(0x7f0000300000, 3145728, 3000000, "active_allocated");
  p.appends().setitems();
  // seg B
  p.dict().mark().kv("device", 0).kv("address", 0x7f0000800000).kv("total_size", 2097152).kv("stream", 0);
  p.str("segment_type").str("small").str("blocks").list();
  block(0x7f0000800000, 2097152, 0, "inactive");
  p.append().setitems();
  p.appends();  // the two segments into `segments`
  // device_traces: [[events]]
  p.str("device_traces").list().mark().list().mark();
  auto frames_f1 = [&]() {  // a C++ frame the viz filter drops, then the Python frame train.py:42:forward
    p.list().memoize().mark();                                                        // memo 3
    p.dict().memoize().mark().str("name").str("torch::unwind::unwind()").str("filename").str("??").kv("line", 0).setitems();  // memo 4
    p.dict().memoize().mark().str("name").str("forward").str("filename").str("/home/u/model/train.py").kv("line", 42).setitems();  // memo 5
    p.appends();
  };
  auto event = [&](const char* action, int64_t addr, int64_t size, int64_t t) {
    p.dict().mark().str("action").str(action).kv("addr", addr).kv("size", size).kv("stream", 0).kv("time_us", t);
  };
  event("segment_alloc", 0x7f0000000000, 6291456, 1000);
  p.str("frames").list().setitems();
  event("alloc", 0x7f0000000000, 2000000, 1010);
  p.str("frames");
  frames_f1();
  p.setitems();
  event("alloc", 0x7f0000200000, 1048576, 1020);
  p.str("frames").list().mark();
  p.dict().mark().str("name").str("at::autocast::cached_cast(c10::ScalarType, at::Tensor const&)").str("filename").str("").kv("line", 0).setitems();
  p.get(5);  // the same Python frame object as before: BINGET memo 5
  p.appends().setitems();
  event("alloc", 0x7f0000300000, 3000000, 1030);
  p.str("frames").get(3).setitems();  // F1's list itself, by memo
  event("free_requested", 0x7f0000200000, 1048576, 1040);
  p.setitems();
  event("free_completed", 0x7f0000200000, 1048576, 1041);
  p.setitems();
  event("segment_alloc", 0x7f0000800000, 2097152, 1050);
  p.setitems();
  event("oom", 0, 999999999, 1060);
  p.kv("device_free", 12345).setitems();
  p.appends().appends();  // events into the device's list, the list into device_traces
  p.str("allocator_settings").dict().mark().str("expandable_segments").yes().kv("max_split_size", 209715200);
  p.str("PYTORCH_CUDA_ALLOC_CONF").str("expandable_segments:True").setitems();
  p.setitems().stop();
  return p.b;
}

TEST(PickleReader, ReadsALiteralPickleOfBuiltins) {
  // pickle.dumps({"a": [1, -2, True, None, 1.5]}, protocol=2), byte by byte:
  const std::string bytes =
      "\x80\x02"s                         // PROTO 2
      "}q\x00"                            // EMPTY_DICT, BINPUT 0
      "X\x01\x00\x00\x00" "a"             // BINUNICODE len 1 "a"
      "q\x01"                             // BINPUT 1
      "]q\x02"                            // EMPTY_LIST, BINPUT 2
      "("                                 // MARK
      "K\x01"                             // BININT1 1
      "J\xfe\xff\xff\xff"                 // BININT -2
      "\x88"                              // NEWTRUE
      "N"                                 // NONE
      "G\x3f\xf8\x00\x00\x00\x00\x00\x00" // BINFLOAT 1.5 (big-endian)
      "e"                                 // APPENDS
      "s"                                 // SETITEM root["a"] = list
      ".";                                // STOP
  std::unique_ptr<ByteSource> src = MakeStringByteSource(bytes);
  StatusOr<pickle::Document> doc = pickle::ReadPickle(*src, nullptr);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const pickle::Value* a = doc->Find(doc->root(), "a");
  ASSERT_NE(a, nullptr);
  pickle::Items items = doc->items(*a);
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].i, 1);
  EXPECT_EQ(items[1].i, -2);
  EXPECT_EQ(items[2].kind, pickle::Kind::kBool);
  EXPECT_EQ(items[3].kind, pickle::Kind::kNone);
  EXPECT_DOUBLE_EQ(items[4].f, 1.5);
}

TEST(MemorySnapshotReader, HandBuiltSnapshotSegsumTotals) {
  StatusOr<MemorySnapshot> s = Read(HandSnapshot());
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->segments.size(), 2u);
  EXPECT_EQ(s->segments[0].total_size, 6291456u);
  EXPECT_EQ(s->segments[0].block_count, 3u);
  EXPECT_EQ(s->segments[0].segment_type, "large");
  EXPECT_EQ(s->segments[1].block_count, 1u);
  EXPECT_EQ(s->blocks[0].requested_size, 2000000u);
  EXPECT_EQ(s->blocks[1].state, BlockState::kInactive);
  ASSERT_EQ(s->events.size(), 8u);
  EXPECT_EQ(s->events[7].action, SnapshotAction::kOom);
  EXPECT_EQ(s->events[7].device_free, 12345u);
  EXPECT_EQ(s->events[1].time_us, 1010);
  // F1 by list memo and F2's Python frame by dict memo: two distinct stacks, three frames.
  EXPECT_EQ(s->events[1].frames, s->events[3].frames);
  EXPECT_NE(s->events[1].frames, s->events[2].frames);
  EXPECT_EQ(s->frame_lists.size(), 2u);
  EXPECT_EQ(s->frames.size(), 3u);
  EXPECT_TRUE(s->settings.present);
  EXPECT_EQ(s->settings.expandable_segments, true);
  EXPECT_EQ(s->settings.max_split_size, 209715200);
  EXPECT_EQ(s->settings.alloc_conf, "expandable_segments:True");
  EXPECT_EQ(s->diagnostics.empty(), true);
}

TEST(MemorySnapshotReader, DetectsPicklesByTheirFirstBytes) {
  const std::string dir = testing::MakeTempDir("snapshot_detect");
  testing::WriteFile(dir + "/snap.bin", HandSnapshot());
  testing::WriteFile(dir + "/trace.json", R"({"traceEvents": []})");
  EXPECT_EQ(DetectInputKind(dir + "/snap.bin"), InputKind::kMemorySnapshot);
  EXPECT_EQ(DetectInputKind(dir + "/trace.json"), InputKind::kTrace);
  StatusOr<Trace> t = ReadTrace(dir + "/snap.bin");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("memory snapshot"), std::string::npos);
}

// Every hostile input: one line, naming what and where, and no crash.
void ExpectRefused(const std::string& bytes, const std::string& what, const std::string& where) {
  StatusOr<MemorySnapshot> s = Read(bytes);
  ASSERT_FALSE(s.ok()) << what;
  const std::string& m = s.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find("hand.pickle: "), std::string::npos) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
  EXPECT_NE(m.find(where), std::string::npos) << m;
}

TEST(MemorySnapshotReader, RefusesEveryObjectBuildingOpcode) {
  // pickle.dumps of os.system("ls") by hand, protocol 2: GLOBAL 'os\nsystem\n' at byte 2.
  ExpectRefused("\x80\x02" "cos\nsystem\n" "X\x02\x00\x00\x00" "ls" "\x85" "R" "."s, "GLOBAL (0x63)", "byte 2:");
  // STACK_GLOBAL after two strings (protocol 4): at byte 8.
  ExpectRefused("\x80\x04" "\x8c\x02os" "\x8c\x00" "\x93" "."s, "STACK_GLOBAL", "byte 8:");
  // Each other refused opcode right after PROTO (byte 2).
  for (const auto& [op, name] : std::vector<std::pair<char, std::string>>{{'R', "REDUCE"}, {'b', "BUILD"}, {'i', "INST"},
                                                                          {'o', "OBJ"}, {'\x81', "NEWOBJ"}, {'\x92', "NEWOBJ_EX"},
                                                                          {'P', "PERSID"}, {'Q', "BINPERSID"}, {'\x82', "EXT1"},
                                                                          {'\x97', "NEXT_BUFFER"}, {'\x8f', "EMPTY_SET"}}) {
    ExpectRefused(std::string("\x80\x04") + op + ".", name, "byte 2:");
  }
  ExpectRefused(std::string("\x80\x04\xff."), "unknown pickle opcode 0xff", "byte 2:");
}

TEST(MemorySnapshotReader, RefusesHostileShapes) {
  // A memo reference to nothing: BINGET 7 with an empty memo, at byte 2.
  ExpectRefused(std::string("\x80\x04h\x07."), "memo reference 7 to nothing", "byte 2:");
  // LONG_BINGET far beyond the memo.
  ExpectRefused(std::string("\x80\x04j\xff\xff\xff\x7f."), "to nothing", "byte 2:");
  // A huge length prefix: BINUNICODE8 claims 2^62 bytes and gives 3: truncated, nothing allocated for it.
  ExpectRefused(std::string("\x80\x04\x8d") + std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8) + "abc", "more than 4 GiB", "byte 2:");
  // BINBYTES claims 4 GiB - 1.
  ExpectRefused(std::string("\x80\x04" "B\xff\xff\xff\xff" "xy"), "truncated", "byte ");
  // LONG4 claims 2^31 - 1 bytes of integer.
  ExpectRefused(std::string("\x80\x04\x8b\xff\xff\xff\x7f\x01"), "truncated", "byte ");
  // APPENDS without a MARK, SETITEMS into a list, STOP on an empty stack, no STOP at all.
  ExpectRefused(std::string("\x80\x04]e."), "APPENDS without a MARK", "byte 3:");
  ExpectRefused(std::string("\x80\x04](K\x01K\x02u."), "SETITEMS into a list", "byte 8:");
  ExpectRefused(std::string("\x80\x04."), "STOP with an empty stack", "byte 2:");
  ExpectRefused(std::string("\x80\x04}"), "truncated", "byte 3:");
  // A protocol this reader does not know.
  ExpectRefused(std::string("\x80\x09}."), "pickle protocol 9", "byte 0:");
  // A valid pickle that is not a snapshot.
  ExpectRefused(std::string("\x80\x04K\x05."), "not a PyTorch memory snapshot", "byte 0:");
}

TEST(MemorySnapshotReader, DeepNestingIsRefusedAtItsByte) {
  // 100,000 nested lists ([[[...]]], as Python's pickler writes them: every EMPTY_LIST first,
  // then the APPENDs from the innermost out). The k-th APPEND makes a list k + 1 deep: the 64th,
  // at byte 2 + N + 63, is the first one past the cap of 64.
  const size_t n = 100000;
  std::string b = "\x80\x04";
  b += std::string(n, ']');      // EMPTY_LIST x N
  b += std::string(n - 1, 'a');  // APPEND x N-1: each list into the one below
  b += ".";
  ExpectRefused(b, "nested more than 64 deep", "byte " + std::to_string(2 + n + 63) + ":");
  // The same in a snapshot's place: {'segments': [[[...]]]} (the audit's 5M-deep case, smaller).
  Pickle p;
  p.proto(4).dict().str("segments").raw(std::string(200, ']')).raw(std::string(199, 'a')).op('s').stop();
  ExpectRefused(p.b, "nested more than 64 deep", "byte ");
  // Tuples wrap the top of the stack without growing it: EMPTY_TUPLE then TUPLE1 x 100.
  ExpectRefused("\x80\x04)" + std::string(100, '\x85') + ".", "nested more than 64 deep", "byte 66:");
  // 64 deep is a pickle like any other (here not a snapshot).
  ExpectRefused("\x80\x04)" + std::string(63, '\x85') + ".", "not a PyTorch memory snapshot", "byte 0:");
}

TEST(MemorySnapshotReader, StopLeavesOneValue) {
  // N lists never put anywhere, then STOP (at byte 2 + N): Python would return the last one; no
  // pickler writes this, and it is no snapshot.
  const size_t n = 100000;
  ExpectRefused("\x80\x04" + std::string(n, ']') + ".", "STOP leaves 99999 more values and 0 open MARKs behind",
                "byte " + std::to_string(2 + n) + ":");
  // N open MARKs and one dict: no container is held, and the MARKs are left open.
  ExpectRefused("\x80\x04" + std::string(n, '(') + "}.", "STOP leaves 0 more values and 100000 open MARKs behind",
                "byte " + std::to_string(3 + n) + ":");
}

TEST(MemorySnapshotReader, FillingAPlacedContainerIsRefused) {
  // Nesting grown through the memo after the fact: L1 into L0, then L2 into L1 by BINGET. Python's
  // pickler fills each container before placing it; this is a cyclic or hand-made pickle.
  const std::string chain = "\x80\x04"
                            "]\x94"   // bytes 2-3: L0, MEMOIZE 0
                            "]\x94"   // bytes 4-5: L1, MEMOIZE 1
                            "a"       // byte 6: L1 into L0
                            "h\x01"   // bytes 7-8: BINGET 1 (L1)
                            "]"       // byte 9: L2
                            "a"       // byte 10: L2 into L1, which is inside L0
                            "."s;
  ExpectRefused(chain, "already put into another container", "byte 10:");
  // A list holding itself (a.append(a)) is no such fill: read, and not a snapshot.
  ExpectRefused("\x80\x04]\x94h\x00" "a."s, "not a PyTorch memory snapshot", "byte 0:");
}

TEST(MemorySnapshotReader, ContainerAndReferenceFloodsAreRefused) {
  // A million empty lists on the stack (a 1 MB file) would hold ~52 bytes each: over the budget
  // of 4x the input, at least 16 MiB, long before the end.
  std::string lists = "\x80\x04" + std::string(1000000, ']') + ".";
  StatusOr<MemorySnapshot> s = Read(lists);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("over the reader's budget"), std::string::npos) << s.status().message();
  ExpectRefused(lists, "a flood of containers or memo references", "byte ");
  // One list referred to 2 million times (BINGET 0: 2 bytes for a 16-byte reference).
  std::string refs = "\x80\x04]\x94";
  for (int i = 0; i < 2000000; ++i) refs += "h\x00"s;
  refs += ".";
  ExpectRefused(refs, "over the reader's budget", "byte ");
  // The same shape under the budget is read: 100,000 lists into one list (then: not segments).
  std::string fine = "\x80\x04}\x8c\x08segments](" + std::string(100000, ']') + "es.";
  s = Read(fine);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("none is a segment"), std::string::npos) << s.status().message();
}

TEST(MemorySnapshotReader, SegmentsEntriesThatAreNotSegments) {
  // {'segments': [5, 'x']}: nothing there is a segment: not a snapshot.
  Pickle none;
  none.proto(4).dict().str("segments").list().mark().i1(5).str("x").appends().op('s').stop();
  ExpectRefused(none.b, "'segments' holds 2 entries and none is a segment (the first is of type int)", "byte 0:");
  // One segment and one int: the segment is read, the int counted.
  Pickle one;
  one.proto(4).dict().str("segments").list().mark();
  one.dict().mark().kv("total_size", 1024).str("blocks").list().setitems();
  one.i1(7).appends().op('s').stop();
  StatusOr<MemorySnapshot> s = Read(one.b);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->segments.size(), 1u);
  EXPECT_EQ(s->diagnostics.Count(DiagCode::kSnapshotMissingField), 1u);
  EXPECT_EQ(s->diagnostics.entries().at("snapshot_missing_field").first_message,
            "an entry of 'segments' that is not a segment (of type int)");
}

TEST(MemorySnapshotReader, PicklesOfOtherProtocolsAreNamed) {
  const std::string dir = testing::MakeTempDir("snapshot_protocols");
  // PROTO with a protocol this reader does not know: still a pickle, and the reader says which.
  testing::WriteFile(dir + "/p9.bin", "\x80\x09}."s);
  EXPECT_EQ(DetectInputKind(dir + "/p9.bin"), InputKind::kMemorySnapshot);
  StatusOr<MemorySnapshot> p9 = ReadMemorySnapshot(dir + "/p9.bin");
  ASSERT_FALSE(p9.ok());
  EXPECT_NE(p9.status().message().find("byte 0: pickle protocol 9 (this reader knows 2 to 5"), std::string::npos)
      << p9.status().message();
  // pickle.dumps({'a': 1}, protocol=1): no PROTO; EMPTY_DICT, BINPUT 0 (a NUL no text has).
  const std::string p1 = "}q\x00X\x01\x00\x00\x00" "aq\x01K\x01s."s;
  testing::WriteFile(dir + "/p1.bin", p1);
  EXPECT_EQ(DetectInputKind(dir + "/p1.bin"), InputKind::kMemorySnapshot);
  ExpectRefused(p1, "starts with EMPTY_DICT (0x7d), not PROTO (0x80): a pickle of protocol 0 or 1", "byte 0:");
  // pickle.dumps({'a': 1}, protocol=0): text that could start anything else; told by its name.
  const std::string p0 = "(dp0\nVa\np1\nI1\ns."s;
  testing::WriteFile(dir + "/p0.txt", p0);
  testing::WriteFile(dir + "/p0.pickle", p0);
  testing::WriteFile(dir + "/p0.pkl", p0);
  EXPECT_EQ(DetectInputKind(dir + "/p0.txt"), InputKind::kTrace);
  EXPECT_EQ(DetectInputKind(dir + "/p0.pickle"), InputKind::kMemorySnapshot);
  EXPECT_EQ(DetectInputKind(dir + "/p0.pkl"), InputKind::kMemorySnapshot);
  StatusOr<MemorySnapshot> p0s = ReadMemorySnapshot(dir + "/p0.pickle");
  ASSERT_FALSE(p0s.ok());
  EXPECT_NE(p0s.status().message().find("byte 0: the pickle starts with MARK (0x28), not PROTO"), std::string::npos)
      << p0s.status().message();
  EXPECT_NE(p0s.status().message().find("protocols 2 to 5"), std::string::npos);
  // PROTO 1 (Python never writes it, the format allows it): refused the same way.
  ExpectRefused("\x80\x01}."s, "pickle protocol 1 (this reader knows 2 to 5", "byte 0:");
}

TEST(MemorySnapshotReader, TruncatedAnywhereIsOneLine) {
  const std::string full = HandSnapshot();
  for (size_t cut = 0; cut < full.size(); cut += 7) {
    StatusOr<MemorySnapshot> s = Read(full.substr(0, cut));
    ASSERT_FALSE(s.ok()) << cut;
    EXPECT_EQ(s.status().message().find('\n'), std::string::npos);
    EXPECT_NE(s.status().message().find("byte "), std::string::npos) << s.status().message();
  }
}

TEST(MemorySnapshotReader, BigIntsSaturateAndAreCounted) {
  Pickle p;
  p.proto(4).dict().mark().str("segments").list().mark();
  p.dict().mark().kv("total_size", 1024).str("blocks").list().mark();
  p.dict().mark().kv("size", 1024).kv("requested_size", 1000).str("state").str("active_allocated");
  p.str("address").op('\x8a').le(9, 1).le(0, 8).le(1, 1);  // LONG1 of 9 bytes: 2^64
  p.str("frames").list().setitems();
  p.appends().setitems().appends().setitems().stop();  // block into blocks, segment into segments
  StatusOr<MemorySnapshot> s = Read(p.b);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->blocks.size(), 1u);
  EXPECT_EQ(s->blocks[0].address, static_cast<uint64_t>(INT64_MAX));
  EXPECT_EQ(s->diagnostics.Count(DiagCode::kSnapshotBigInt), 1u);
}

TEST(MemorySnapshotReader, OlderSnapshotsWithHistoryAndNoSettings) {
  // A block with `history` instead of `frames` and no requested_size: segsum's
  // _block_extra_legacy takes history[0].real_size; no allocator_settings, no device_traces.
  Pickle p;
  p.proto(2).dict().mark().str("segments").list().mark();
  p.dict().mark().kv("total_size", 4096).kv("address", 8192).str("blocks").list().mark();
  p.dict().mark().kv("size", 4096).str("state").str("active_allocated").str("history").list().mark();
  p.dict().mark().kv("addr", 8192).kv("real_size", 3000).setitems();
  p.appends().setitems();                               // the entry into history, history into the block
  p.appends().setitems().appends().setitems().stop();  // block into blocks, segment into segments
  StatusOr<MemorySnapshot> s = Read(p.b);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->blocks.size(), 1u);
  EXPECT_EQ(s->blocks[0].requested_size, 3000u);
  EXPECT_FALSE(s->settings.present);
  EXPECT_FALSE(s->has_device_traces);
}

// PyTorch's segsum on the shared snapshots (shared/traces/README.md, computed with
// torch/cuda/_memory_viz.py's own formulas), and the device_traces action counts listed there.
struct SharedGolden {
  const char* path;
  size_t segments;
  uint64_t reserved, allocated, internal, external;
  uint64_t segment_allocs, allocs, frees;
};
constexpr SharedGolden kShared[] = {
    {"traces/memory/fwdbwd_bf16_autocast.pickle", 88, 1205862400, 420198612, 6534444, 779129344, 88, 4404, 4242},
    {"traces/memory/fwdbwd_fp32.pickle", 83, 1390411776, 460198612, 4523308, 925689856, 83, 3907, 3745},
};

TEST(MemorySnapshotReader, SharedSnapshotsMatchSegsum) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  for (const SharedGolden& g : kShared) {
    SCOPED_TRACE(g.path);
    const std::string path = testing::SharedPath(g.path);
    EXPECT_EQ(DetectInputKind(path), InputKind::kMemorySnapshot);
    StatusOr<MemorySnapshot> s = ReadMemorySnapshot(path);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s->segments.size(), g.segments);
    uint64_t reserved = 0;
    int64_t allocated = 0, internal = 0, external = 0;
    for (const SnapshotSegment& seg : s->segments) {
      reserved += seg.total_size;
      for (uint32_t i = seg.first_block; i < seg.first_block + seg.block_count; ++i) {
        const SnapshotBlock& b = s->blocks[i];
        if (b.state == BlockState::kActiveAllocated) {
          allocated += static_cast<int64_t>(b.requested_size);
          internal += static_cast<int64_t>(b.size - b.requested_size);
        } else {
          external += static_cast<int64_t>(b.size);
        }
      }
    }
    EXPECT_EQ(reserved, g.reserved);
    EXPECT_EQ(allocated, static_cast<int64_t>(g.allocated));
    EXPECT_EQ(internal, static_cast<int64_t>(g.internal));
    EXPECT_EQ(external, static_cast<int64_t>(g.external));
    uint64_t seg_alloc = 0, alloc = 0, free_req = 0, free_done = 0;
    for (const SnapshotEvent& e : s->events) {
      seg_alloc += e.action == SnapshotAction::kSegmentAlloc;
      alloc += e.action == SnapshotAction::kAlloc;
      free_req += e.action == SnapshotAction::kFreeRequested;
      free_done += e.action == SnapshotAction::kFreeCompleted;
    }
    EXPECT_EQ(seg_alloc, g.segment_allocs);
    EXPECT_EQ(alloc, g.allocs);
    EXPECT_EQ(free_req, g.frees);
    EXPECT_EQ(free_done, g.frees);
    EXPECT_EQ(s->protocol, 4);
    EXPECT_TRUE(s->settings.present);
    EXPECT_EQ(s->settings.expandable_segments, false);
    EXPECT_EQ(s->annotations.size(), 12u);  // 3 x (zero_grad, step) START/END (pickletools listing)
    EXPECT_EQ(s->diagnostics.empty(), true);
  }
}

}  // namespace
}  // namespace memory_snapshot_reader_test
}  // namespace ampscope
