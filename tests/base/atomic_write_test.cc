// base/atomic_write.h: regular files are replaced all-or-nothing, special files are written in
// place and never replaced, symlinks are refused, and an output may not be an input. Every
// test works in a fresh temporary directory; special files are a FIFO made here, a pipe's
// descriptor and /dev/full (never the real /dev/null).
#include "base/atomic_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace ampscope {
namespace {

using testing::MakeTempDir;
using testing::ReadFile;
using testing::WriteFile;

bool Exists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

OutputSpec Failing(const std::string& path) {
  // Writes part of its output, then fails: a renderer that hits an error half-way.
  return {path, [](std::ostream& out) {
            out << "half of it";
            return Status::Error("renderer failed half-way");
          }};
}

TEST(AtomicWrite, WritesAndReplacesRegularFiles) {
  const std::string dir = MakeTempDir("atomic_write");
  WriteFile(dir + "/a.json", "old");
  ASSERT_TRUE(WriteOutputs({TextOutput(dir + "/a.json", "new a"), TextOutput(dir + "/b.md", "new b")}).ok());
  EXPECT_EQ(ReadFile(dir + "/a.json"), "new a");
  EXPECT_EQ(ReadFile(dir + "/b.md"), "new b");
  EXPECT_EQ(List(dir), (std::vector<std::string>{"a.json", "b.md"}));  // no temporaries left
  ASSERT_TRUE(WriteFileAtomically(dir + "/c.txt", "c").ok());
  EXPECT_EQ(ReadFile(dir + "/c.txt"), "c");
}

TEST(AtomicWrite, StreamedOutputLargerThanTheBuffer) {
  const std::string dir = MakeTempDir("atomic_write");
  const std::string big(1 << 20, 'x');  // 1 MiB: goes around the 64 KiB buffer
  ASSERT_TRUE(WriteOutputs({{dir + "/big", [&](std::ostream& out) {
                               for (int i = 0; i < 3; ++i) out << big;
                               out << "end";
                               return Status::Ok();
                             }}})
                  .ok());
  EXPECT_EQ(ReadFile(dir + "/big").size(), 3 * big.size() + 3);
}

TEST(AtomicWrite, AFailingWriterLeavesNoPartialSet) {
  const std::string dir = MakeTempDir("atomic_write");
  WriteFile(dir + "/r.json", "previous report");
  Status st = WriteOutputs({TextOutput(dir + "/r.json", "new report"), Failing(dir + "/r.html")});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "renderer failed half-way");
  EXPECT_EQ(ReadFile(dir + "/r.json"), "previous report");  // untouched
  EXPECT_EQ(List(dir), (std::vector<std::string>{"r.json"}));  // no r.html, no temporaries
}

TEST(AtomicWrite, AFullDeviceIsAnErrorAndLeavesNoPartialSet) {
  // /dev/full: every write fails with ENOSPC, the injected write failure of issue 16.
  AMPSCOPE_REQUIRE_INPUT(Exists("/dev/full"), "no /dev/full on this system");
  const std::string dir = MakeTempDir("atomic_write");
  Status st = WriteOutputs({TextOutput(dir + "/r.json", "report"), TextOutput("/dev/full", "chrome trace")});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "/dev/full: write failed: No space left on device");
  EXPECT_TRUE(List(dir).empty());  // r.json was written to a temporary only, and removed
  struct stat after;
  ASSERT_EQ(::stat("/dev/full", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));  // still the device
}

TEST(AtomicWrite, FifoIsWrittenInPlaceAndStaysAFifo) {
  const std::string dir = MakeTempDir("atomic_write");
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = ReadFile(fifo); });  // opening for reading unblocks the writer
  Status st = WriteOutputs({TextOutput(fifo, "through the fifo"), TextOutput(dir + "/r.json", "r")});
  reader.join();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(received, "through the fifo");
  struct stat after;
  ASSERT_EQ(::lstat(fifo.c_str(), &after), 0);
  EXPECT_TRUE(S_ISFIFO(after.st_mode));  // not replaced by a regular file
  EXPECT_EQ(ReadFile(dir + "/r.json"), "r");
}

TEST(AtomicWrite, DescriptorAliasWritesToTheDescriptor) {
  // /dev/fd/N (like /dev/stdout = /dev/fd/1) writes into the open descriptor, here a pipe.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Status st = WriteOutputs({TextOutput("/dev/fd/" + std::to_string(fds[1]), "to the pipe")});
  ::close(fds[1]);
  ASSERT_TRUE(st.ok()) << st.message();
  char buf[64] = {0};
  const ssize_t n = ::read(fds[0], buf, sizeof(buf));
  ::close(fds[0]);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "to the pipe");
}

TEST(AtomicWrite, SymlinkIsRefusedAndNothingIsWritten) {
  const std::string dir = MakeTempDir("atomic_write");
  WriteFile(dir + "/target.json", "target");
  ASSERT_EQ(::symlink((dir + "/target.json").c_str(), (dir + "/link.json").c_str()), 0);
  Status st = WriteOutputs({TextOutput(dir + "/other.md", "md"), TextOutput(dir + "/link.json", "report")});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "/link.json: is a symbolic link; refusing to replace it or write through it "
                                "(name its target instead)");
  struct stat after;
  ASSERT_EQ(::lstat((dir + "/link.json").c_str(), &after), 0);
  EXPECT_TRUE(S_ISLNK(after.st_mode));
  EXPECT_EQ(ReadFile(dir + "/target.json"), "target");
  EXPECT_FALSE(Exists(dir + "/other.md"));  // checked before anything was written
  // A dangling link is refused too (writing would create its target).
  ASSERT_EQ(::symlink((dir + "/nowhere").c_str(), (dir + "/dangling").c_str()), 0);
  EXPECT_FALSE(WriteFileAtomically(dir + "/dangling", "x").ok());
  EXPECT_FALSE(Exists(dir + "/nowhere"));
}

TEST(AtomicWrite, DirectoryAndMissingParentAreErrors) {
  const std::string dir = MakeTempDir("atomic_write");
  Status st = WriteFileAtomically(dir, "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + ": is a directory");
  st = WriteFileAtomically(dir + "/missing/r.json", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "/missing/r.json: cannot write: No such file or directory");
}

TEST(CheckOutputPaths, RefusesAnOutputThatIsAnInput) {
  const std::string dir = MakeTempDir("output_paths");
  const std::string trace = dir + "/t.json.gz";
  WriteFile(trace, "trace");
  EXPECT_TRUE(CheckOutputPaths({trace}, {dir + "/r.json", "", dir + "/r.html"}).ok());
  Status st = CheckOutputPaths({trace}, {trace});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), trace + ": is also an input (" + trace + "); refusing to overwrite it");
  // The same file under another spelling, a hard link, or a symlink to it.
  EXPECT_FALSE(CheckOutputPaths({trace}, {dir + "/./sub/../t.json.gz"}).ok());
  ASSERT_EQ(::link(trace.c_str(), (dir + "/hard").c_str()), 0);
  EXPECT_FALSE(CheckOutputPaths({trace}, {dir + "/hard"}).ok());
  ASSERT_EQ(::symlink(trace.c_str(), (dir + "/soft").c_str()), 0);
  EXPECT_FALSE(CheckOutputPaths({trace}, {dir + "/soft"}).ok());
  // A relative spelling of an absolute input.
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  EXPECT_FALSE(CheckOutputPaths({trace}, {"t.json.gz"}).ok());
  ASSERT_EQ(chdir(cwd), 0);
}

TEST(CheckOutputPaths, RefusesTwoOutputsOnOneFile) {
  const std::string dir = MakeTempDir("output_paths");
  Status st = CheckOutputPaths({}, {dir + "/r.html", dir + "/r.md", dir + "/r.html"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "/r.html: is given for two outputs");
  st = CheckOutputPaths({}, {dir + "/r.html", dir + "//r.html"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "//r.html: is given for two outputs (also as " + dir + "/r.html)");
  // Character devices may be named twice (checked, not written).
  EXPECT_TRUE(CheckOutputPaths({}, {"/dev/null", "/dev/null"}).ok());
}

}  // namespace
}  // namespace ampscope
