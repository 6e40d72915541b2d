#include "cli/table_outputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace ampscope::cli {

Status CheckCsvDir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::Error("--csv " + dir + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return Status::Error("--csv " + dir + ": not a directory (--csv names a directory for one CSV file per table)");
  return Status::Ok();
}

std::vector<OutputSpec> CsvOutputs(const std::string& dir, const std::shared_ptr<AnalysisDatabase>& db) {
  std::vector<OutputSpec> outputs;
  for (const std::string& table : db->Tables()) {
    const std::string path = (std::filesystem::path(dir) / (table + ".csv")).string();
    outputs.push_back({path, [db, table](std::ostream& out) { return db->WriteCsv(table, out); }});
  }
  return outputs;
}

Status AddTableOutputs(const std::string& sqlite_path, const std::string& csv_dir, const std::vector<const Trace*>& traces,
                       const JobAnalysis& job, const std::string& tool_version, std::vector<OutputSpec>& outputs) {
  SqliteExportOptions options;
  options.tool_version = tool_version;
  if (csv_dir.empty()) {
    if (!sqlite_path.empty())
      outputs.push_back({sqlite_path, [traces, &job, options](std::ostream& o) {
                           return WriteSqliteExport(traces, job, options, o);
                         }});
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<AnalysisDatabase>> built = BuildSqliteExport(traces, job, options);
  if (!built.ok()) return built.status();
  std::shared_ptr<AnalysisDatabase> database = std::move(built).value();
  if (!sqlite_path.empty()) outputs.push_back({sqlite_path, [database](std::ostream& o) { return database->Serialize(o); }});
  for (OutputSpec& csv : CsvOutputs(csv_dir, database)) outputs.push_back(std::move(csv));
  return Status::Ok();
}

Status CsvDir::Create() {
  namespace fs = std::filesystem;
  std::vector<fs::path> missing;
  std::error_code ec;
  fs::path start = fs::path(dir_).lexically_normal();
  if (!start.has_filename() && start.has_parent_path()) start = start.parent_path();  // "out/" is "out"
  for (fs::path p = start; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
      return Status::Error("--csv " + dir_ + ": cannot create " + it->string() + ": " + std::strerror(errno));
    created_.push_back(it->string());
  }
  return CheckCsvDir(dir_);
}

void CsvDir::RemoveIfCreated() {
  // rmdir removes only empty directories: anything the failed set left (nothing, by WriteOutputs'
  // contract) or someone else put there stays.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) rmdir(it->c_str());
  created_.clear();
}

}  // namespace ampscope::cli
