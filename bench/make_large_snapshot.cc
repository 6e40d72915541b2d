// make_large_snapshot OUT.pickle MEGABYTES: writes a PyTorch memory snapshot of about that size,
// shaped as torch.cuda.memory._dump_snapshot writes them (pickle protocol 4 as Python's Pickler
// emits it: every str, dict and list memoized, a repeated object written as a memo reference,
// lists filled in APPENDS batches of 1000): segments with blocks, one device trace of
// alloc / free_requested / free_completed cycles with segment allocs and frees, each event with
// its own list of ~40 frames drawn from 600 distinct stacks over 3000 distinct frames (so the
// frame dicts are memo references, as in real snapshots), and optimizer-step annotations.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

class Pickler {
 public:
  std::string out;
  void Proto() { out += "\x80\x04"; }
  void Stop() { out += '.'; }
  void Mark() { out += '('; }
  void EmptyDict() { out += '}'; Memoize(); }
  void EmptyList() { out += ']'; Memoize(); }
  void SetItems() { out += 'u'; }
  void Appends() { out += 'e'; }
  void False() { out += '\x89'; }
  void Int(int64_t v) {
    if (v >= 0 && v < 256) {
      out += 'K';
      out += static_cast<char>(v);
    } else if (v >= 0 && v < 65536) {
      out += 'M';
      Le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out += 'J';
      Le(static_cast<uint32_t>(v), 4);
    } else {  // LONG1 with the fewest bytes, as Python's encode_long
      int n = 1;
      while (n < 8 && !(v >= -(int64_t{1} << (8 * n - 1)) && v < (int64_t{1} << (8 * n - 1)))) ++n;
      out += '\x8a';
      out += static_cast<char>(n);
      Le(static_cast<uint64_t>(v), n);
    }
  }
  // A str: the first time written and memoized, afterwards a memo reference.
  void Str(const std::string& s) {
    auto it = strs_.find(s);
    if (it != strs_.end()) return Get(it->second);
    if (s.size() < 256) {
      out += '\x8c';
      out += static_cast<char>(s.size());
    } else {
      out += 'X';
      Le(s.size(), 4);
    }
    out += s;
    strs_[s] = memo_;
    Memoize();
  }
  void Get(uint32_t i) {
    if (i < 256) {
      out += 'h';
      out += static_cast<char>(i);
    } else {
      out += 'j';
      Le(i, 4);
    }
  }
  uint32_t last_memo() const { return memo_ - 1; }

 private:
  void Memoize() {
    out += '\x94';
    ++memo_;
  }
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  uint32_t memo_ = 0;
  std::map<std::string, uint32_t> strs_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_large_snapshot OUT.pickle MEGABYTES\n");
    return 2;
  }
  const uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
  std::mt19937_64 rng(33);
  Pickler p;
  p.Proto();
  p.EmptyDict();
  p.Mark();
  // Frames: written in full the first time an event uses them, then memo references.
  constexpr int kFrames = 3000, kStacks = 600, kDepth = 40;
  std::vector<std::vector<int>> stacks(kStacks);
  for (auto& s : stacks)
    for (int d = 0; d < kDepth; ++d) s.push_back(static_cast<int>(rng() % kFrames));
  std::vector<int64_t> frame_memo(kFrames, -1);
  auto frames = [&](int stack) {
    p.EmptyList();
    p.Mark();
    for (int f : stacks[stack]) {
      if (frame_memo[f] >= 0) {
        p.Get(static_cast<uint32_t>(frame_memo[f]));
        continue;
      }
      p.EmptyDict();
      frame_memo[f] = p.last_memo();
      p.Mark();
      p.Str("name");
      p.Str(f % 7 == 0 ? "forward" : "at::native::op_" + std::to_string(f));
      p.Str("filename");
      p.Str(f % 7 == 0 ? "/srv/model/layer" + std::to_string(f % 50) + ".py" : "aten_op_" + std::to_string(f) + ".cpp");
      p.Str("line");
      p.Int(f % 700);
      p.SetItems();
    }
    p.Appends();
  };
  // Segments: 64 of 20 MiB, each with two blocks.
  const uint64_t base = uint64_t{1} << 40;
  p.Str("segments");
  p.EmptyList();
  p.Mark();
  for (int s = 0; s < 64; ++s) {
    p.EmptyDict();
    p.Mark();
    p.Str("device"); p.Int(0);
    p.Str("address"); p.Int(static_cast<int64_t>(base + (uint64_t(s) << 25)));
    p.Str("total_size"); p.Int(20 << 20);
    p.Str("stream"); p.Int(0);
    p.Str("segment_type"); p.Str("large");
    p.Str("is_expandable"); p.False();
    p.Str("blocks");
    p.EmptyList();
    p.Mark();
    for (int b = 0; b < 2; ++b) {
      p.EmptyDict();
      p.Mark();
      p.Str("address"); p.Int(static_cast<int64_t>(base + (uint64_t(s) << 25) + uint64_t(b) * (10 << 20)));
      p.Str("size"); p.Int(10 << 20);
      p.Str("requested_size"); p.Int(b == 0 ? (10 << 20) - 512 : 10 << 20);
      p.Str("state"); p.Str(b == 0 ? "active_allocated" : "inactive");
      p.Str("frames");
      frames(static_cast<int>(rng() % kStacks));
      p.SetItems();
    }
    p.Appends();
    p.SetItems();
  }
  p.Appends();
  // One device trace, filled in batches of 1000 until the file is big enough.
  p.Str("device_traces");
  p.EmptyList();
  p.Mark();
  p.EmptyList();
  int64_t t = 1700000000000000;
  uint64_t n = 0, step_ends = 0;
  std::vector<int64_t> ends;
  const char* actions[] = {"alloc", "free_requested", "free_completed"};
  while (p.out.size() < target) {
    p.Mark();
    for (int i = 0; i < 1000; ++i, ++n) {
      const uint64_t cycle = n / 3;
      const char* action = actions[n % 3];
      if (n % 3000 == 0) action = "segment_alloc";
      p.EmptyDict();
      p.Mark();
      p.Str("action"); p.Str(action);
      p.Str("addr"); p.Int(static_cast<int64_t>(base + (cycle % 4096) * 4096));
      p.Str("size"); p.Int(static_cast<int64_t>(4096 + (cycle % 97) * 512));
      p.Str("stream"); p.Int(0);
      p.Str("time_us"); p.Int(t += 3);
      p.Str("frames");
      frames(static_cast<int>(cycle % kStacks));
      p.SetItems();
    }
    p.Appends();
    if (n % 30000 == 0) ends.push_back(t), ++step_ends;
  }
  p.Appends();
  p.Str("allocator_settings");
  p.EmptyDict();
  p.Mark();
  p.Str("expandable_segments"); p.False();
  p.Str("max_split_size"); p.Int(-1);
  p.SetItems();
  p.Str("external_annotations");
  p.EmptyList();
  p.Mark();
  for (int64_t e : ends) {
    p.EmptyDict();
    p.Mark();
    p.Str("stage"); p.Str("END");
    p.Str("name"); p.Str("Optimizer.step#Adam.step");
    p.Str("device"); p.Int(0);
    p.Str("time_us"); p.Int(e);
    p.SetItems();
  }
  p.Appends();
  p.SetItems();
  p.Stop();
  std::ofstream(argv[1], std::ios::binary).write(p.out.data(), static_cast<std::streamsize>(p.out.size()));
  std::printf("%s: %zu bytes, %llu events, %llu optimizer steps\n", argv[1], p.out.size(),
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(step_ends));
  return 0;
}
