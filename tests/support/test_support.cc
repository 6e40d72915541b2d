#include "support/test_support.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ampscope::testing {

std::string SharedPath(const std::string& relative) { return std::string(AMPSCOPE_SHARED_DIR) + "/" + relative; }

bool HaveShared() {
  struct stat st;
  return stat(SharedPath("traces/kineto").c_str(), &st) == 0;
}

bool InputsRequired() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string v = ci;
  return !v.empty() && v != "0" && v != "false";
}

std::string SourcePath(const std::string& relative) { return std::string(AMPSCOPE_SOURCE_DIR) + "/" + relative; }
std::string BinaryPath(const std::string& relative) { return std::string(AMPSCOPE_BINARY_DIR) + "/" + relative; }

std::string MakeTempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/" + prefix + ".XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
  return tmpl;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << contents;
}

}  // namespace ampscope::testing
