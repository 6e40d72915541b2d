// How several threads read one input (trace/io/shared_input.h): a plain file is read by each
// thread itself, from its own offset (ByteSource::OpenAt, pread); a pipe or a gzip'd file goes
// through one producer (BlockStream). Expected bytes and errors are written out by hand here;
// the parallel reader's own tests (kineto_parallel_test.cc) compare whole traces.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/io/input_stream.h"
#include "trace/io/shared_input.h"

namespace ampscope {
namespace shared_input_test {
namespace {

std::string ReadAll(ByteSource& s, size_t chunk = 7) {
  std::string out, buf(chunk, '\0');
  while (true) {
    StatusOr<size_t> n = s.Read(buf.data(), buf.size());
    EXPECT_TRUE(n.ok()) << n.status().message();
    if (!n.ok() || *n == 0) return out;
    out.append(buf.data(), *n);
  }
}

TEST(ByteSourceOpenAt, PlainFileFromAnyOffsetWithoutMovingTheOthers) {
  const std::string path = testing::MakeTempDir("open_at") + "/f.json";
  testing::WriteFile(path, "0123456789abcdefghij");
  StatusOr<std::unique_ptr<ByteSource>> file = OpenByteSource(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  char head[4];
  ASSERT_EQ(*(*file)->Read(head, 4), 4u);  // the original source reads on with read()
  std::unique_ptr<ByteSource> at5 = (*file)->OpenAt(5), at15 = (*file)->OpenAt(15);
  ASSERT_NE(at5, nullptr);
  ASSERT_NE(at15, nullptr);
  EXPECT_EQ(at5->raw_bytes_done(), 5u);  // progress counts from the offset
  EXPECT_EQ(at5->raw_bytes_total(), 20u);
  char two[2];
  ASSERT_EQ(*at15->Read(two, 2), 2u);
  EXPECT_EQ(std::string(two, 2), "fg");
  EXPECT_EQ(ReadAll(*at5), "56789abcdefghij");
  EXPECT_EQ(ReadAll(*at15), "hij");
  EXPECT_EQ(ReadAll(**file), "456789abcdefghij");  // pread left its offset alone
  EXPECT_EQ(ReadAll(*(*file)->OpenAt(20)), "");
  EXPECT_EQ(ReadAll(*MakeStringByteSource("0123456789")->OpenAt(8)), "89");
}

TEST(ByteSourceOpenAt, NotForGzipOrPipes) {
  const std::string dir = testing::MakeTempDir("open_at");
  // A gzip member of "{}" (Python's gzip.compress(b"{}", mtime=0)): its bytes at an offset
  // cannot be had without inflating what precedes them.
  const std::string gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xab\xae\x05\x00\x43\xbf\xa6\xa3\x02\x00\x00\x00", 22);
  testing::WriteFile(dir + "/t.json.gz", gz);
  StatusOr<std::unique_ptr<ByteSource>> gzip = OpenByteSource(dir + "/t.json.gz");
  ASSERT_TRUE(gzip.ok()) << gzip.status().message();
  EXPECT_EQ((*gzip)->OpenAt(0), nullptr);
  EXPECT_EQ(ReadAll(**gzip), "{}");
  EXPECT_EQ(MakeStringByteSource(gz)->OpenAt(0), nullptr);

  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "[1]", 3), 3);
    ::close(fd);
  });
  StatusOr<std::unique_ptr<ByteSource>> pipe = OpenByteSource(fifo);
  ASSERT_TRUE(pipe.ok()) << pipe.status().message();
  EXPECT_EQ((*pipe)->OpenAt(0), nullptr);
  EXPECT_EQ((*pipe)->Reopen(), nullptr);
  std::unique_ptr<SharedInput> shared = MakeSharedInput(**pipe, SharedInputOptions{});
  EXPECT_FALSE(shared->direct());
  EXPECT_EQ(ReadAll(*shared->Reader(0, 0)), "[1]");
  writer.join();
}

// A Kineto trace with `n` cpu ops, one event a line.
std::string Events(int n) {
  std::string e;
  for (int i = 0; i < n; ++i)
    e += std::string(i ? ",\n" : "") + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(1000 + 10 * i) + R"(, "dur": 5})";
  return "{\"traceEvents\": [\n" + e + "\n]}\n";
}

TEST(SharedInput, PlainFileAndPipeReadInParallelAsInOneThread) {
  const std::string dir = testing::MakeTempDir("shared_input");
  const std::string json = Events(3000);  // ~270 kB: pieces of 4 kB
  testing::WriteFile(dir + "/t.json", json);
  KinetoReadOptions one, many;
  one.threads = 1;
  many.threads = 2;
  many.parallel_piece_bytes = 4096;
  KinetoReadStats stats;
  many.stats = &stats;
  StatusOr<Trace> a = ReadKinetoTrace(dir + "/t.json", one);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->cpu_ops.size(), 3000u);
  StatusOr<Trace> b = ReadKinetoTrace(dir + "/t.json", many);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(stats.direct_reads);
  EXPECT_EQ(stats.parse_threads, 2);
  ASSERT_EQ(b->cpu_ops.size(), 3000u);
  for (size_t i = 0; i < 3000; ++i) ASSERT_EQ(b->cpu_ops[i].start_ns, 1000000 + 10000 * static_cast<int64_t>(i)) << i;

  // The same bytes through a pipe: one producer thread, the readers copy from its blocks.
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    for (size_t at = 0; at < json.size();) {
      const ssize_t n = ::write(fd, json.data() + at, json.size() - at);
      ASSERT_GT(n, 0);
      at += static_cast<size_t>(n);
    }
    ::close(fd);
  });
  StatusOr<Trace> c = ReadKinetoTrace(fifo, many);
  writer.join();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(stats.direct_reads);
  ASSERT_EQ(c->cpu_ops.size(), 3000u);
  EXPECT_EQ(c->cpu_ops.back().start_ns, a->cpu_ops.back().start_ns);
}

// A file cut short while it is read (here: between the open and the read) ends in the one-line
// truncation error, at the offset where the bytes stop, never in a crash (as mapping the file
// into memory would: a read past the new end raises SIGBUS).
TEST(SharedInput, FileTruncatedWhileReadIsAnErrorNotACrash) {
  const std::string dir = testing::MakeTempDir("shared_input");
  const std::string path = dir + "/t.json";
  const std::string json = Events(3000);
  testing::WriteFile(path, json);
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  ASSERT_TRUE(source.ok()) << source.status().message();
  const size_t cut = json.size() / 2;
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(cut)), 0);
  KinetoReadOptions many;
  many.threads = 2;
  many.parallel_piece_bytes = 4096;
  StatusOr<Trace> r = ReadKinetoTraceFromSource(**source, "t.json", many);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "t.json: byte " + std::to_string(cut) +
                                      ": truncated JSON: the input ends inside traceEvents (expected an event, ',' or ']')");
}

}  // namespace
}  // namespace shared_input_test
}  // namespace ampscope
