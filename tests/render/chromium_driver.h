// Drives headless Chromium through the DevTools protocol over a pipe
// (--remote-debugging-pipe: commands on fd 3, replies on fd 4, NUL-terminated JSON), so a
// test sees what the page did: console messages and exceptions, every network request the
// page made, the DOM after its scripts ran, and a screenshot. One browser serves several
// pages (starting Chromium is the slow part).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::testing {

struct PageResult {
  bool loaded = false;
  std::string error;                        // why the driver failed (not what the page did)
  std::vector<std::string> console_errors;  // console.error/assert, uncaught exceptions, Log errors (CSP, network)
  std::vector<std::string> requests;        // every URL the page requested, the page itself included
  nlohmann::json probe;                     // result of the probe expression (JSON.parse'd)
  std::string dom;                          // document.documentElement.outerHTML after scripts
  std::string screenshot_png;               // PNG bytes of the viewport
};

class ChromiumDriver {
 public:
  // The first of chromium, chromium-browser, google-chrome found in PATH, or "".
  static std::string FindBrowser();

  ChromiumDriver() = default;
  ~ChromiumDriver();
  ChromiumDriver(const ChromiumDriver&) = delete;
  ChromiumDriver& operator=(const ChromiumDriver&) = delete;

  // Starts the browser headless, sandbox and GPU off, no network (every host resolves to
  // nothing), with a fresh profile in `profile_dir`. Its own log goes to `log_path`.
  bool Start(const std::string& browser, const std::string& profile_dir, const std::string& log_path,
             std::string* error);
  // Opens `url` in a new tab with a width x height viewport, waits for the load event, runs
  // `probe_js` (an expression returning a JSON string), and takes a screenshot.
  PageResult Load(const std::string& url, int width, int height, const std::string& probe_js, int timeout_ms = 30000);

 private:
  bool Send(const std::string& method, const nlohmann::json& params, const std::string& session, int* id);
  // Reads messages until the reply to `id` arrives; events on the way are handled.
  bool Await(int id, int timeout_ms, nlohmann::json* result, std::string* error);
  bool ReadMessage(int timeout_ms, nlohmann::json* msg);
  void HandleEvent(const nlohmann::json& msg);

  int pid_ = -1;
  int to_browser_ = -1;
  int from_browser_ = -1;
  int next_id_ = 1;
  std::string buffer_;
  std::map<int, nlohmann::json> replies_;
  // Per session: what the page did.
  std::map<std::string, PageResult*> pages_;
  std::map<std::string, bool> load_fired_;
};

// Decodes a PNG (8-bit RGB or RGBA, not interlaced) into RGBA pixels. False on anything else.
bool DecodePng(const std::string& png, int* width, int* height, std::vector<uint8_t>* rgba, std::string* error);

std::string Base64Decode(const std::string& in);

}  // namespace ampscope::testing
