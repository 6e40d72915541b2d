// The Perfetto protobuf writer: the encoder's wire format by hand, and the whole trace
// decoded by protoc against tests/export/perfetto_trace_subset.proto (copied from
// Perfetto's protos), then rebuilt into slices and compared with the input.
#include "export/perfetto_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analyzers/analyze.h"
#include "export/chrome_trace.h"
#include "pipeline/job.h"
#include "report_fixtures.h"
#include "support/test_support.h"

namespace ampscope {
namespace perfetto_writer_test {
namespace {

using perfetto_proto::Encoder;

std::string Hex(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    out += buf;
  }
  return out;
}

TEST(PerfettoEncoder, WireFormatByHand) {
  // Values from the protobuf encoding guide: 150 -> 96 01, 300 -> ac 02.
  Encoder e;
  e.Uint(1, 150);
  EXPECT_EQ(Hex(e.data()), "089601");
  e.clear();
  e.Varint(300);
  EXPECT_EQ(Hex(e.data()), "ac02");
  // A negative int64 is the 10-byte varint of its two's complement.
  e.clear();
  e.Int(2, -1);
  EXPECT_EQ(Hex(e.data()), "10ffffffffffffffffff01");
  // fixed64 (wire type 1), little-endian: 1.0 = 0x3ff0000000000000.
  e.clear();
  e.Double(44, 1.0);
  EXPECT_EQ(Hex(e.data()), "e102000000000000f03f");  // key (44<<3|1) = 353 = e1 02
  e.clear();
  e.Fixed64(47, 0x0102030405060708ull);
  EXPECT_EQ(Hex(e.data()), "f9020807060504030201");
  // Length-delimited, and invalid UTF-8 repaired in string fields.
  e.clear();
  e.String(2, "hi");
  EXPECT_EQ(Hex(e.data()), "12026869");
  e.clear();
  e.String(2, std::string("a\xff", 2));
  EXPECT_EQ(Hex(e.data()), "120461efbfbd");
  Encoder outer, inner;
  inner.Uint(1, 5);
  outer.Message(3, inner);
  EXPECT_EQ(Hex(outer.data()), "1a020805");
}

// ---- protobuf text format (protoc --decode output) ----

struct TextNode {
  std::vector<std::pair<std::string, std::string>> scalars;  // raw text (strings unescaped)
  std::vector<std::pair<std::string, TextNode>> children;
  const std::string* Get(const std::string& key) const {
    for (const auto& [k, v] : scalars)
      if (k == key) return &v;
    return nullptr;
  }
  std::vector<std::string> All(const std::string& key) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : scalars)
      if (k == key) out.push_back(v);
    return out;
  }
  const TextNode* Child(const std::string& key) const {
    for (const auto& [k, v] : children)
      if (k == key) return &v;
    return nullptr;
  }
};

std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char c = s[++i];
    if (c >= '0' && c <= '7') {
      int v = 0, n = 0;
      while (n < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7') v = v * 8 + (s[i++] - '0'), ++n;
      --i;
      out.push_back(static_cast<char>(v));
    } else if (c == 'x') {
      int v = 0;
      while (i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])))
        v = v * 16 + std::stoi(std::string(1, s[++i]), nullptr, 16);
      out.push_back(static_cast<char>(v));
    } else {
      switch (c) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        default: out.push_back(c);
      }
    }
  }
  return out;
}

// Parses protoc's text output; `unknown` collects field names that are numbers (fields the
// subset .proto does not define).
bool ParseText(std::istream& in, TextNode& node, std::vector<std::string>& unknown) {
  std::string line;
  while (std::getline(in, line)) {
    size_t b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line == "}") return true;
    if (line.size() > 2 && line.compare(line.size() - 2, 2, " {") == 0) {
      std::string key = line.substr(0, line.size() - 2);
      if (std::isdigit(static_cast<unsigned char>(key[0]))) unknown.push_back(key);
      node.children.emplace_back(key, TextNode());
      if (!ParseText(in, node.children.back().second, unknown)) return false;
      continue;
    }
    size_t colon = line.find(": ");
    if (colon == std::string::npos) return false;
    std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (std::isdigit(static_cast<unsigned char>(key[0]))) unknown.push_back(key);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = Unescape(value.substr(1, value.size() - 2));
    node.scalars.emplace_back(key, value);
  }
  return true;
}

bool HaveProtoc() { return std::system("protoc --version > /dev/null 2>&1") == 0; }

struct Slice {
  std::string name, category;
  int64_t ts = 0, dur = 0;
  uint64_t track = 0;
  std::map<std::string, std::string> args;
  size_t flow_starts = 0, flow_ends = 0;
};

struct Decoded {
  std::vector<std::string> unknown_fields;
  std::map<uint64_t, const TextNode*> tracks;  // uuid -> track_descriptor
  std::vector<Slice> slices, instants;
  std::vector<std::tuple<uint64_t, int64_t, double>> counters;  // track, ts, value
  std::multiset<std::string> flow_starts, flow_ends;
  std::vector<std::string> problems;
  uint64_t packets = 0;
  TextNode root;

  std::string TrackName(uint64_t uuid) const {
    auto it = tracks.find(uuid);
    if (it == tracks.end()) return "";
    const TextNode* t = it->second;
    if (const std::string* n = t->Get("name")) return *n;
    if (const TextNode* th = t->Child("thread"))
      if (const std::string* n = th->Get("thread_name")) return *n;
    return "";
  }
  uint64_t FindTrack(const std::string& name) const {
    for (const auto& [uuid, t] : tracks)
      if (TrackName(uuid) == name) return uuid;
    return 0;
  }
  std::string ProcessNameOf(uint64_t uuid) const {
    auto it = tracks.find(uuid);
    if (it == tracks.end()) return "";
    const std::string* parent = it->second->Get("parent_uuid");
    if (parent == nullptr) return "";
    auto p = tracks.find(std::stoull(*parent));
    if (p == tracks.end() || p->second->Child("process") == nullptr) return "";
    const std::string* n = p->second->Child("process")->Get("process_name");
    return n ? *n : "";
  }
};

// Decodes `path` with protoc and rebuilds slices (BEGIN/END pairs per track).
bool Decode(const std::string& path, Decoded& d) {
  std::string proto_dir = testing::SourcePath("tests/export");
  std::string out_path = path + ".txt";
  std::string cmd = "protoc --decode=perfetto.protos.Trace --proto_path=" + proto_dir + " " + proto_dir +
                    "/perfetto_trace_subset.proto < " + path + " > " + out_path + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    d.problems.push_back("protoc failed: " + testing::ReadFile(out_path).substr(0, 2000));
    return false;
  }
  std::ifstream in(out_path);
  if (!ParseText(in, d.root, d.unknown_fields)) {
    d.problems.push_back("cannot parse protoc output");
    return false;
  }
  std::map<uint64_t, std::string> names, cats, arg_names;
  std::map<uint64_t, std::vector<Slice>> open;
  int64_t last_ts = 0;
  for (const auto& [key, packet] : d.root.children) {
    if (key != "packet") continue;
    ++d.packets;
    const std::string* seq = packet.Get("trusted_packet_sequence_id");
    if (seq == nullptr || *seq != "1") d.problems.push_back("packet without sequence id 1");
    if (d.packets == 1 && (packet.Get("sequence_flags") == nullptr || (std::stoi(*packet.Get("sequence_flags")) & 1) == 0))
      d.problems.push_back("first packet does not clear incremental state");
    if (const TextNode* td = packet.Child("track_descriptor")) d.tracks[std::stoull(*td->Get("uuid"))] = td;
    if (const TextNode* idata = packet.Child("interned_data")) {
      for (const auto& [k, entry] : idata->children) {
        uint64_t iid = std::stoull(*entry.Get("iid"));
        std::map<uint64_t, std::string>& table = k == "event_names" ? names : k == "event_categories" ? cats : arg_names;
        if (table.count(iid)) d.problems.push_back("iid reused: " + k);
        table[iid] = *entry.Get("name");
      }
    }
    const TextNode* te = packet.Child("track_event");
    if (te == nullptr) continue;
    int64_t ts = std::stoll(*packet.Get("timestamp"));
    if (ts < last_ts) d.problems.push_back("timestamps go backwards");
    last_ts = ts;
    uint64_t track = std::stoull(*te->Get("track_uuid"));
    if (!d.tracks.count(track)) d.problems.push_back("event on an undeclared track");
    std::string type = *te->Get("type");
    if (type == "TYPE_COUNTER") {
      d.counters.emplace_back(track, ts, std::stod(*te->Get("double_counter_value")));
      continue;
    }
    if (type == "TYPE_SLICE_END") {
      if (open[track].empty()) {
        d.problems.push_back("END without BEGIN");
        continue;
      }
      Slice s = open[track].back();
      open[track].pop_back();
      s.dur = ts - s.ts;
      d.slices.push_back(s);
      continue;
    }
    Slice s;
    s.ts = ts;
    s.track = track;
    if (const std::string* n = te->Get("name_iid")) s.name = names[std::stoull(*n)];
    if (const std::string* c = te->Get("category_iids")) s.category = cats[std::stoull(*c)];
    for (const auto& [k, a] : te->children) {
      if (k != "debug_annotations") continue;
      std::string name = arg_names[std::stoull(*a.Get("name_iid"))];
      for (const auto& [vk, v] : a.scalars)
        if (vk != "name_iid") s.args[name] = v;
    }
    for (const std::string& f : te->All("flow_ids")) d.flow_starts.insert(f), s.flow_starts++;
    for (const std::string& f : te->All("terminating_flow_ids")) d.flow_ends.insert(f), s.flow_ends++;
    if (type == "TYPE_INSTANT") {
      d.instants.push_back(s);
    } else {
      open[track].push_back(s);
    }
  }
  for (const auto& [track, stack] : open)
    if (!stack.empty()) d.problems.push_back("slice never ended on track " + std::to_string(track));
  return true;
}

class PerfettoSmallTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    AMPSCOPE_REQUIRE_INPUT(HaveProtoc(), "protoc not installed (Debian package protobuf-compiler)");
    traces_.push_back(testing::MakeSmallTrace());
    job_ = AnalyzeJob(traces_, AnalysisOptions{});
    testing::AddTestFindings(job_);
    dir_ = testing::MakeTempDir("ampscope_pftrace");
    path_ = dir_ + "/small.pftrace";
    std::ofstream out(path_, std::ios::binary);
    Status st = WritePerfettoTrace(traces_, job_, out);
    ASSERT_TRUE(st.ok()) << st.message();
    out.close();
    ASSERT_TRUE(Decode(path_, d_)) << ::testing::PrintToString(d_.problems);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::vector<Trace> traces_;
  JobAnalysis job_;
  std::string dir_, path_;
  Decoded d_;
};

TEST_F(PerfettoSmallTrace, DecodesWithOnlyKnownFieldsAndBalancedSlices) {
  EXPECT_THAT(d_.unknown_fields, ::testing::IsEmpty());
  EXPECT_THAT(d_.problems, ::testing::IsEmpty());
  EXPECT_GT(d_.packets, 20u);
}

TEST_F(PerfettoSmallTrace, EveryKernelOnceWithExactNanoseconds) {
  const Trace& t = traces_[0];
  std::multiset<std::tuple<std::string, int64_t, int64_t>> expected, actual;
  for (const KernelEvent& k : t.kernels) {
    std::string name(t.str(k.name));
    if (name.find("bad_utf8") == 0) name = "bad_utf8_\xEF\xBF\xBD\xEF\xBF\xBD_kernel";
    expected.insert({name, k.start_ns, k.duration_ns()});
  }
  for (const Slice& s : d_.slices)
    if (s.category == "kernel") {
      actual.insert({s.name, s.ts, s.dur});
      EXPECT_EQ(d_.TrackName(s.track), "stream 7");
      EXPECT_EQ(d_.ProcessNameOf(s.track), "python3");
    }
  EXPECT_EQ(actual, expected);
}

TEST_F(PerfettoSmallTrace, EveryOtherEventAndTheAnalysisTracks) {
  const Trace& t = traces_[0];
  std::map<std::string, size_t> by_cat;
  for (const Slice& s : d_.slices) by_cat[s.category]++;
  for (const Slice& s : d_.instants) by_cat[s.category + " (instant)"]++;
  EXPECT_EQ(by_cat["gpu_memcpy"], t.memcpys.size());
  EXPECT_EQ(by_cat["gpu_memset"], t.memsets.size());
  EXPECT_EQ(by_cat["cuda_runtime"], t.api_calls.size());
  EXPECT_EQ(by_cat["cuda_sync"], t.syncs.size());
  EXPECT_EQ(by_cat["cpu_op"], t.cpu_ops.size());
  EXPECT_EQ(by_cat["user_annotation"], 2u);
  EXPECT_EQ(by_cat["nvtx (instant)"], 1u);
  EXPECT_EQ(by_cat["cpu_instant_event (instant)"], t.memory_events.size());
  EXPECT_EQ(by_cat["Trace"], 1u);

  // Steps: the exact windows of the analysis.
  uint64_t steps = d_.FindTrack("steps");
  ASSERT_NE(steps, 0u);
  EXPECT_EQ(d_.ProcessNameOf(steps), "ampscope analysis");
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const Slice& s : d_.slices)
    if (s.track == steps) spans.push_back({s.ts, s.dur});
  const auto& windows = job_.ranks[0].steps.steps;
  ASSERT_EQ(spans.size(), windows.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(spans[i].first, windows[i].start_ns);
    EXPECT_EQ(spans[i].second, windows[i].duration_ns());
  }
  // Idle gaps: hand-computed sums (report_fixtures.h).
  uint64_t gaps = d_.FindTrack("GPU 0 idle gaps");
  std::map<std::string, int64_t> idle;
  for (const Slice& s : d_.slices)
    if (s.track == gaps) idle[s.name] += s.dur;
  EXPECT_EQ(idle["host_wait"], testing::kSmallHostWaitNs);
  EXPECT_EQ(idle["kernel_wait"], testing::kSmallKernelWaitNs);
  EXPECT_EQ(idle["other"], testing::kSmallOtherIdleNs);
  // A finding with its arguments.
  uint64_t finding = d_.FindTrack("finding test_slow_gap");
  int found = 0;
  for (const Slice& s : d_.slices)
    if (s.track == finding) {
      ++found;
      EXPECT_EQ(s.args.at("id"), "test_slow_gap");
      EXPECT_EQ(s.args.at("recommendation"), "Use pinned memory and more DataLoader workers.");
      EXPECT_EQ(s.ts, testing::kBaseNs + 50'000);
      EXPECT_EQ(s.dur, 45'000);
    }
  EXPECT_EQ(found, 1);
  // Counters: GPU busy per step, 29% in step 1 (hand-computed), then 0 after the last step.
  uint64_t busy = d_.FindTrack("GPU busy per step");
  std::vector<double> values;
  for (const auto& [track, ts, v] : d_.counters)
    if (track == busy) values.push_back(v);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_NEAR(values[0], 29.0, 1e-9);
  EXPECT_EQ(values[2], 0.0);
  // Input counters keep their name.
  EXPECT_NE(d_.FindTrack("tensor_active_pct"), 0u);
}

TEST_F(PerfettoSmallTrace, FlowsStartAndTerminate) {
  // 7 paired ac2g flows: each id once as a start and once as a terminating end.
  EXPECT_EQ(d_.flow_starts.size(), 7u);
  EXPECT_EQ(d_.flow_starts, d_.flow_ends);
  // Every ac2g flow starts on a runtime call and ends on GPU work.
  size_t starts = 0, ends = 0;
  for (const Slice& s : d_.slices) {
    if (s.flow_starts) {
      EXPECT_EQ(s.category, "cuda_runtime") << s.name;
    }
    if (s.flow_ends) {
      EXPECT_THAT(s.category, ::testing::AnyOf("kernel", "gpu_memcpy", "gpu_memset")) << s.name;
    }
    starts += s.flow_starts;
    ends += s.flow_ends;
  }
  EXPECT_EQ(starts, 7u);
  EXPECT_EQ(ends, 7u);
}

TEST_F(PerfettoSmallTrace, SmallerThanTheJson) {
  std::ostringstream json;
  ASSERT_TRUE(WriteChromeTrace(traces_, job_, json).ok());
  std::string pb = testing::ReadFile(path_);
  EXPECT_LT(pb.size(), json.str().size());
}

TEST(PerfettoLanes, PartlyOverlappingKernelsGetTheirOwnTrack) {
  // Clock skew can make kernels on one stream overlap partly. Slices on one Perfetto track
  // must nest, so the writer moves the second one to "stream 7 (overlap 1)", keeping times.
  AMPSCOPE_REQUIRE_INPUT(HaveProtoc(), "protoc not installed (Debian package protobuf-compiler)");
  std::vector<Trace> traces;
  traces.push_back(testing::MakeSmallTrace());
  KernelEvent k = traces[0].kernels[0];  // [20,40) µs
  k.start_ns = testing::kBaseNs + 30'000;
  k.end_ns = testing::kBaseNs + 42'000;
  k.correlation = -1;
  k.name = traces[0].strings.Intern("skewed_kernel");
  traces[0].kernels.push_back(k);
  FinalizeTrace(traces[0]);
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  std::string dir = testing::MakeTempDir("ampscope_pftrace");
  std::string path = dir + "/lanes.pftrace";
  {
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(WritePerfettoTrace(traces, job, out).ok());
  }
  Decoded d;
  bool decoded = Decode(path, d);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(decoded) << ::testing::PrintToString(d.problems);
  EXPECT_THAT(d.problems, ::testing::IsEmpty());
  uint64_t lane = d.FindTrack("stream 7 (overlap 1)");
  ASSERT_NE(lane, 0u);
  std::vector<std::tuple<std::string, int64_t, int64_t>> on_lane;
  size_t kernels = 0;
  for (const Slice& s : d.slices) {
    kernels += s.category == "kernel";
    if (s.track == lane) on_lane.emplace_back(s.name, s.ts - testing::kBaseNs, s.dur);
  }
  EXPECT_EQ(kernels, traces[0].kernels.size());
  EXPECT_EQ(on_lane, (std::vector<std::tuple<std::string, int64_t, int64_t>>{{"skewed_kernel", 30'000, 12'000}}));
}

TEST(PerfettoErrors, NegativeTimestampsAreRefused) {
  std::vector<Trace> traces;
  traces.push_back(testing::MakeSmallTrace());
  traces[0].kernels[0].start_ns = -5;
  JobAnalysis job;
  std::ostringstream out;
  Status st = WritePerfettoTrace(traces, job, out);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("negative timestamp"));
  EXPECT_TRUE(out.str().empty());  // nothing written
}

TEST(PerfettoMultiRank, RanksAreSeparateProcesses) {
  AMPSCOPE_REQUIRE_INPUT(HaveProtoc(), "protoc not installed (Debian package protobuf-compiler)");
  std::vector<Trace> traces;
  traces.push_back(testing::MakeSmallTrace(0));
  traces.push_back(testing::MakeSmallTrace(1));
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  std::string dir = testing::MakeTempDir("ampscope_pftrace");
  std::string path = dir + "/ranks.pftrace";
  {
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(WritePerfettoTrace(traces, job, out).ok());
  }
  Decoded d;
  bool decoded = Decode(path, d);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(decoded) << ::testing::PrintToString(d.problems);
  EXPECT_THAT(d.problems, ::testing::IsEmpty());
  std::set<std::string> process_names;
  std::set<std::string> pids;
  for (const auto& [uuid, td] : d.tracks)
    if (const TextNode* p = td->Child("process")) {
      process_names.insert(*p->Get("process_name"));
      EXPECT_TRUE(pids.insert(*p->Get("pid")).second) << "pid reused across processes";
    }
  EXPECT_TRUE(process_names.count("rank 0 \xC2\xB7 ampscope analysis"));
  EXPECT_TRUE(process_names.count("rank 1 \xC2\xB7 ampscope analysis"));
  size_t kernels = 0;
  for (const Slice& s : d.slices) kernels += s.category == "kernel";
  EXPECT_EQ(kernels, 12u);
  EXPECT_EQ(d.flow_starts.size(), 14u);
  EXPECT_EQ(d.flow_starts, d.flow_ends);
}

}  // namespace
}  // namespace perfetto_writer_test
}  // namespace ampscope
