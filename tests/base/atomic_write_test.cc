// base/atomic_write.h: regular files are replaced all-or-nothing, special files are written in
// place and never replaced, symlinks are refused, and an output may not be an input. Every
// test works in a fresh temporary directory; special files are a FIFO made here, a pipe's
// descriptor and /dev/full (never the real /dev/null).
#include "base/atomic_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace ampscope {
namespace atomic_write_test {
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

// Issue 38: a rename that failed half-way through the set removed the outputs already renamed,
// the user's earlier r.json with them. Here the second output's directory disappears between
// the writing and the commit (its writer's neighbour moves it away), so r.json is renamed into
// place and r.html's rename fails: r.json must be the old file again, byte for byte.
TEST(AtomicWrite, AFailedRenameLeavesEveryEarlierFileAsItWas) {
  const std::string dir = MakeTempDir("atomic_write");
  ASSERT_EQ(::mkdir((dir + "/html").c_str(), 0755), 0);
  WriteFile(dir + "/r.json", "OLD report\n");
  Status st = WriteOutputs({TextOutput(dir + "/r.json", "new report"), TextOutput(dir + "/html/r.html", "new html"),
                            {dir + "/r.md", [&](std::ostream& out) {
                               // r.html's temporary is written by now; its directory goes away.
                               EXPECT_EQ(::rename((dir + "/html").c_str(), (dir + "/moved").c_str()), 0);
                               out << "new md";
                               return Status::Ok();
                             }}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind(dir + "/html/r.html: cannot rename into place: ", 0), 0u) << st.message();
  EXPECT_EQ(ReadFile(dir + "/r.json"), "OLD report\n");
  // Neither the new r.md, nor a temporary or a kept copy of r.json, is left in dir.
  EXPECT_EQ(List(dir), (std::vector<std::string>{"moved", "r.json"}));
}

// The issue's own case: `chattr +i r.html`, then a set with r.json and r.html. The immutable
// file can be neither replaced nor kept aside: the set fails before anything is replaced.
TEST(AtomicWrite, AnImmutableOutputFailsTheSetAndKeepsTheEarlierFiles) {
  const std::string dir = MakeTempDir("atomic_write");
  WriteFile(dir + "/r.json", "OLD\n");
  WriteFile(dir + "/r.html", "old html\n");
  const int fd = ::open((dir + "/r.html").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  int flags = 0;
  const bool immutable = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 &&
                         (flags |= FS_IMMUTABLE_FL, ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0);
  if (!immutable) {
    ::close(fd);
    GTEST_SKIP() << "chattr +i needs CAP_LINUX_IMMUTABLE and a file system with the flag; "
                    "AFailedRenameLeavesEveryEarlierFileAsItWas covers the rollback everywhere";
  }
  Status st = WriteOutputs({TextOutput(dir + "/r.json", "new"), TextOutput(dir + "/r.html", "new html")});
  flags &= ~FS_IMMUTABLE_FL;
  ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
  ::close(fd);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "/r.html: cannot replace: Operation not permitted");
  EXPECT_EQ(ReadFile(dir + "/r.json"), "OLD\n");
  EXPECT_EQ(ReadFile(dir + "/r.html"), "old html\n");
  EXPECT_EQ(List(dir), (std::vector<std::string>{"r.html", "r.json"}));
}

TEST(AtomicWrite, AReplacedFileKeepsItsMode) {
  const std::string dir = MakeTempDir("atomic_write");
  WriteFile(dir + "/private.json", "old");
  ASSERT_EQ(::chmod((dir + "/private.json").c_str(), 0600), 0);
  WriteFile(dir + "/shared.json", "old");
  ASSERT_EQ(::chmod((dir + "/shared.json").c_str(), 0664), 0);
  const mode_t umask_was = ::umask(022);
  Status st = WriteOutputs({TextOutput(dir + "/private.json", "new"), TextOutput(dir + "/shared.json", "new"),
                            TextOutput(dir + "/fresh.json", "new")});
  ::umask(umask_was);
  ASSERT_TRUE(st.ok()) << st.message();
  struct stat a, b, c;
  ASSERT_EQ(::stat((dir + "/private.json").c_str(), &a), 0);
  ASSERT_EQ(::stat((dir + "/shared.json").c_str(), &b), 0);
  ASSERT_EQ(::stat((dir + "/fresh.json").c_str(), &c), 0);
  EXPECT_EQ(a.st_mode & 07777, 0600u);  // was 0644 (0666 less the umask) before issue 38
  EXPECT_EQ(b.st_mode & 07777, 0664u);
  EXPECT_EQ(c.st_mode & 07777, 0644u);  // a new file: 0666 less the umask, as open(2) gives
  EXPECT_EQ(ReadFile(dir + "/private.json"), "new");
}

// Runs WriteOutputs in a child whose writer stops half-way (it has written the first output's
// temporary) and tells the parent, which sends `sig`. Returns the child's wait status.
int InterruptedWrite(const std::string& dir, int sig, void (*setup)()) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    if (setup != nullptr) setup();
    Status st = WriteOutputs({TextOutput(dir + "/r.json", std::string(100000, 'x')),
                              {dir + "/r.html", [&](std::ostream& out) {
                                 out << "half";
                                 out.flush();
                                 if (::write(ready[1], "r", 1) != 1) ::_exit(90);
                                 ::usleep(300 * 1000);  // the signal comes meanwhile
                                 out << " and the rest";
                                 return Status::Ok();
                               }}});
    ::_exit(st.ok() ? 0 : 91);
  }
  ::close(ready[1]);
  char c = 0;
  const bool started = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (started) ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// Issue 38: Ctrl-C or SIGTERM during the writes left hidden ".r.json.ampscope-tmp.PID.N" files
// (~320 MB a run on a 400 MB trace). They are removed, and the process dies by that signal.
TEST(AtomicWrite, ASignalDuringTheWritesRemovesTheTemporariesAndKillsBySameSignal) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(strsignal(sig));
    const std::string dir = MakeTempDir("atomic_write");
    WriteFile(dir + "/r.json", "old");
    const int status = InterruptedWrite(dir, sig, nullptr);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    EXPECT_EQ(WTERMSIG(status), sig);  // a shell reports 128+N
    EXPECT_EQ(List(dir), (std::vector<std::string>{"r.json"}));
    EXPECT_EQ(ReadFile(dir + "/r.json"), "old");
  }
}

void IgnoreSighup() { ::signal(SIGHUP, SIG_IGN); }
void ExitFromOwnHandler() {
  ::signal(SIGTERM, [](int) { ::_exit(42); });
}

TEST(AtomicWrite, AnIgnoredSignalStaysIgnoredAndAnOwnHandlerStillRuns) {
  // nohup: SIGHUP ignored, the set is written whole.
  const std::string dir = MakeTempDir("atomic_write");
  int status = InterruptedWrite(dir, SIGHUP, &IgnoreSighup);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(ReadFile(dir + "/r.html"), "half and the rest");
  // A handler the program had: called after the temporaries are gone.
  const std::string dir2 = MakeTempDir("atomic_write");
  status = InterruptedWrite(dir2, SIGTERM, &ExitFromOwnHandler);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
  EXPECT_TRUE(List(dir2).empty());
}

// Issue 38: a FIFO output with no reader blocked in open(2) for ever. It is waited for, then
// the set fails with a line that says so, and the regular outputs are not written.
TEST(AtomicWrite, AFifoWithoutAReaderIsABoundedWaitThenAnError) {
  const std::string dir = MakeTempDir("atomic_write");
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  WriteOptions options;
  options.fifo_wait_ms = 200;
  const auto start = std::chrono::steady_clock::now();
  Status st = WriteOutputs({TextOutput(dir + "/r.json", "r"), TextOutput(fifo, "x")}, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), fifo + ": no process is reading this FIFO (waited 0.2 s); start its reader first, or name a file");
  EXPECT_GE(seconds, 0.2);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(List(dir), (std::vector<std::string>{"pipe"}));
  // A reader that comes during the wait gets the bytes.
  options.fifo_wait_ms = 5000;
  std::string received;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    received = ReadFile(fifo);
  });
  st = WriteOutputs({TextOutput(fifo, "late reader")}, options);
  reader.join();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(received, "late reader");
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

// Issue 38: a missing or read-only output directory was found only after the analysis, when the
// temporaries were created. CheckOutputPaths, which the commands call before reading, says so.
TEST(CheckOutputPaths, AMissingOrUnwritableDirectoryIsAnError) {
  const std::string dir = MakeTempDir("output_paths");
  Status st = CheckOutputPaths({}, {dir + "/missing/r.json"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "/missing/r.json: cannot write into " + dir + "/missing: No such file or directory");
  WriteFile(dir + "/file", "x");
  st = CheckOutputPaths({}, {dir + "/file/r.json"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), dir + "/file/r.json: cannot write into " + dir + "/file: Not a directory");
  ASSERT_EQ(::mkdir((dir + "/ro").c_str(), 0555), 0);
  ASSERT_EQ(::chmod((dir + "/ro").c_str(), 0555), 0);
  // root writes anywhere: the check then runs as "nobody" in a child.
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && ::setuid(65534) != 0) ::_exit(90);
    Status ro = CheckOutputPaths({}, {dir + "/ro/r.json"});
    const std::string want = dir + "/ro/r.json: cannot write into " + dir + "/ro: Permission denied";
    ::_exit(ro.ok() ? 1 : ro.message() == want ? 0 : 2);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: accepted, 2: another message, 90: setuid failed";
  // A file name without a directory is in the working directory; devices need none.
  EXPECT_TRUE(CheckOutputPaths({}, {"/dev/null", dir + "/ok.json"}).ok());
}

}  // namespace
}  // namespace atomic_write_test
}  // namespace ampscope
