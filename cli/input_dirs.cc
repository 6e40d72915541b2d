#include "cli/input_dirs.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

#include <nlohmann/json.hpp>

#include "base/read_file.h"

namespace ampscope::cli {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsSummaryName(const std::string& name) {
  return EndsWith(name, ".summary.json") || EndsWith(name, ".summary.json.gz");
}

bool Wanted(const std::string& name, DirInputs kind) {
  if (name.empty() || name.front() == '.') return false;  // hidden files, editors' leftovers
  if (kind == DirInputs::kSummaries) return IsSummaryName(name);
  if (IsSummaryName(name)) return false;  // merge's input, not a trace
  // *.pt.trace.json(.gz) ends in .json(.gz) too.
  return EndsWith(name, ".json") || EndsWith(name, ".json.gz") || EndsWith(name, ".sqlite") ||
         EndsWith(name, ".amptrace");
}

const char* WhatWanted(DirInputs kind) {
  return kind == DirInputs::kSummaries ? "*.summary.json(.gz)"
                                       : "*.pt.trace.json(.gz), *.json(.gz), *.sqlite or *.amptrace";
}

// The manifest `ampscope record` writes beside its .amptrace files (schema ampscope.session/N):
// the recording's own account, not a rank's trace. nullopt: no such file, or another JSON.
std::optional<nlohmann::json> RecordingSession(const std::string& dir) {
  const std::string path = dir + "/session.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  StatusOr<std::string> text = ReadFileCapped(path, "a recording's session.json", uint64_t{16} << 20);
  if (!text.ok()) return std::nullopt;
  nlohmann::json s = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (!s.is_object() || !s.contains("schema") || !s["schema"].is_string() ||
      s["schema"].get<std::string>().rfind(kSessionSchemaFamily, 0) != 0)
    return std::nullopt;
  return s;
}

// Why a recording holds no trace file, in its own words (session.json's warnings).
std::string WhyNoFiles(const nlohmann::json& session) {
  std::string why;
  if (session.contains("warnings") && session["warnings"].is_array())
    for (const nlohmann::json& w : session["warnings"])
      if (w.is_object() && w.contains("message") && w["message"].is_string())
        why += (why.empty() ? "" : "; ") + w["message"].get<std::string>();
  return why.empty() ? "session.json lists no trace file and gives no reason" : why;
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return !path.empty() && path != "-" && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, k = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && k < b.size()) {
    if (digit(a[i]) && digit(b[k])) {
      size_t ie = i, ke = k;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (ke < b.size() && digit(b[ke])) ++ke;
      // Leading zeros do not change the number; a shorter run (after them) is smaller.
      size_t iz = i, kz = k;
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (kz + 1 < ke && b[kz] == '0') ++kz;
      if (ie - iz != ke - kz) return ie - iz < ke - kz;
      const int c = a.compare(iz, ie - iz, b, kz, ke - kz);
      if (c != 0) return c < 0;
      i = ie;
      k = ke;
      continue;
    }
    if (a[i] != b[k]) return a[i] < b[k];
    ++i;
    ++k;
  }
  return a.size() - i < b.size() - k;
}

StatusOr<std::vector<std::string>> ExpandInputDirectories(const std::string& command,
                                                          const std::vector<std::string>& inputs, DirInputs kind) {
  std::vector<std::string> out;
  for (const std::string& input : inputs) {
    if (!IsDirectory(input)) {
      out.push_back(input);
      continue;
    }
    std::error_code ec;
    std::vector<std::string> names;
    // A recording's directory: its .amptrace files are the ranks, session.json is not one.
    const std::optional<nlohmann::json> session = kind == DirInputs::kTraces ? RecordingSession(input) : std::nullopt;
    for (std::filesystem::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec) || !Wanted(name, kind)) continue;
      if (session && !EndsWith(name, ".amptrace")) continue;
      names.push_back(name);
    }
    if (ec) return Status::Error(input + ": cannot list the directory: " + ec.message());
    if (names.empty() && session)
      return Status::Error(input + ": a recording with no trace file: " + WhyNoFiles(*session));
    if (names.empty())
      return Status::Error(input + ": a directory with no " + std::string(WhatWanted(kind)) + " in it");
    std::sort(names.begin(), names.end(), NaturalLess);
    const std::string dir = (input.back() == '/') ? input : input + "/";
    for (const std::string& n : names) out.push_back(dir + n);
    std::fprintf(stderr, "ampscope %s: %s: %zu file%s read as the ranks of one job (%s .. %s)\n", command.c_str(),
                 input.c_str(), names.size(), names.size() == 1 ? "" : "s", names.front().c_str(),
                 names.back().c_str());
  }
  return out;
}

}  // namespace ampscope::cli
