#include "chromium_driver.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

namespace ampscope::testing {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

int RemainingMs(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return ms < 0 ? 0 : static_cast<int>(ms);
}

std::string Describe(const json& args) {
  // console API arguments: strings as they are, other values by description.
  std::string out;
  if (!args.is_array()) return out;
  for (const json& a : args) {
    if (!out.empty()) out += " ";
    if (a.contains("value") && a["value"].is_string()) {
      out += a["value"].get<std::string>();
    } else if (a.contains("description")) {
      out += a["description"].dump();
    } else if (a.contains("value")) {
      out += a["value"].dump();
    }
  }
  return out;
}

}  // namespace

std::string ChromiumDriver::FindBrowser() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::string cmd = std::string("command -v ") + name + " > /dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

ChromiumDriver::~ChromiumDriver() {
  if (pid_ > 0) {
    int id;
    Send("Browser.close", json::object(), "", &id);
    for (int i = 0; i < 50; ++i) {  // up to 5 s for a clean exit
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(100 * 1000);
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (to_browser_ >= 0) close(to_browser_);
  if (from_browser_ >= 0) close(from_browser_);
}

bool ChromiumDriver::Start(const std::string& browser, const std::string& profile_dir, const std::string& log_path,
                           std::string* error) {
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<std::string> args = {browser,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--disable-extensions",
                                   "--disable-dev-shm-usage",
                                   "--mute-audio",
                                   "--hide-scrollbars",
                                   "--host-resolver-rules=MAP * ~NOTFOUND",
                                   "--user-data-dir=" + profile_dir,
                                   "--remote-debugging-pipe",
                                   "about:blank"};
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    // Child: fd 3 = commands from us, fd 4 = replies to us.
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    int in = dup(to[0]), out = dup(from[1]);
    dup2(in, 3);
    dup2(out, 4);
    for (int fd = 5; fd < 1024; ++fd) close(fd);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  pid_ = pid;
  to_browser_ = to[1];
  from_browser_ = from[0];
  signal(SIGPIPE, SIG_IGN);  // a dead browser must fail the test, not kill it
  int id;
  json reply;
  if (!Send("Browser.getVersion", json::object(), "", &id) || !Await(id, 60000, &reply, error)) {
    *error = "browser did not answer on the DevTools pipe: " + *error;
    return false;
  }
  return true;
}

bool ChromiumDriver::Send(const std::string& method, const json& params, const std::string& session, int* id) {
  *id = next_id_++;
  json msg = {{"id", *id}, {"method", method}, {"params", params}};
  if (!session.empty()) msg["sessionId"] = session;
  std::string text = msg.dump();
  text.push_back('\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(to_browser_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool ChromiumDriver::ReadMessage(int timeout_ms, json* msg) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    size_t nul = buffer_.find('\0');
    if (nul != std::string::npos) {
      std::string text = buffer_.substr(0, nul);
      buffer_.erase(0, nul + 1);
      *msg = json::parse(text, nullptr, false);
      return !msg->is_discarded();
    }
    pollfd p{from_browser_, POLLIN, 0};
    int r = poll(&p, 1, RemainingMs(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    char buf[65536];
    ssize_t n = read(from_browser_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

bool ChromiumDriver::Await(int id, int timeout_ms, json* result, std::string* error) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!replies_.count(id)) {
    json msg;
    if (!ReadMessage(RemainingMs(deadline), &msg)) {
      *error = "no reply (timeout or browser exited)";
      return false;
    }
    if (msg.contains("id")) {
      replies_[msg["id"].get<int>()] = msg;
    } else {
      HandleEvent(msg);
    }
  }
  json reply = replies_[id];
  replies_.erase(id);
  if (reply.contains("error")) {
    *error = reply["error"].dump();
    return false;
  }
  *result = reply.value("result", json::object());
  return true;
}

void ChromiumDriver::HandleEvent(const json& msg) {
  std::string session = msg.value("sessionId", "");
  std::string method = msg.value("method", "");
  const json& params = msg.contains("params") ? msg["params"] : json::object();
  if (method == "Page.loadEventFired") load_fired_[session] = true;
  auto it = pages_.find(session);
  if (it == pages_.end()) return;
  PageResult& page = *it->second;
  if (method == "Runtime.consoleAPICalled") {
    std::string type = params.value("type", "");
    if (type == "error" || type == "assert") page.console_errors.push_back("console." + type + ": " + Describe(params["args"]));
  } else if (method == "Runtime.exceptionThrown") {
    const json& d = params["exceptionDetails"];
    std::string text = d.value("text", "exception");
    if (d.contains("exception") && d["exception"].contains("description"))
      text += " " + d["exception"]["description"].get<std::string>();
    page.console_errors.push_back("uncaught: " + text);
  } else if (method == "Log.entryAdded") {
    const json& e = params["entry"];
    if (e.value("level", "") == "error")
      page.console_errors.push_back("log (" + e.value("source", "") + "): " + e.value("text", "") + " " + e.value("url", ""));
  } else if (method == "Network.requestWillBeSent") {
    page.requests.push_back(params["request"].value("url", ""));
  }
}

PageResult ChromiumDriver::Load(const std::string& url, int width, int height, const std::string& probe_js,
                                int timeout_ms) {
  PageResult page;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  json r;
  int id;
  auto call = [&](const std::string& method, const json& params, const std::string& session) {
    if (!Send(method, params, session, &id)) {
      page.error = method + ": cannot write to the browser";
      return false;
    }
    std::string err;
    if (!Await(id, RemainingMs(deadline), &r, &err)) {
      page.error = method + ": " + err;
      return false;
    }
    return true;
  };
  if (!call("Target.createTarget", {{"url", "about:blank"}}, "")) return page;
  std::string target = r.value("targetId", "");
  if (!call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, "")) return page;
  std::string session = r.value("sessionId", "");
  pages_[session] = &page;
  bool ok = call("Page.enable", json::object(), session) && call("Runtime.enable", json::object(), session) &&
            call("Log.enable", json::object(), session) && call("Network.enable", json::object(), session) &&
            call("Emulation.setDeviceMetricsOverride",
                 {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}}, session) &&
            call("Page.navigate", {{"url", url}}, session);
  if (ok && r.contains("errorText")) {
    page.error = "navigation failed: " + r["errorText"].get<std::string>();
    ok = false;
  }
  while (ok && !load_fired_[session]) {
    json msg;
    if (!ReadMessage(RemainingMs(deadline), &msg)) {
      page.error = "the load event never came";
      ok = false;
      break;
    }
    if (msg.contains("id")) {
      replies_[msg["id"].get<int>()] = msg;
    } else {
      HandleEvent(msg);
    }
  }
  if (ok) {
    page.loaded = true;
    if (!probe_js.empty() &&
        call("Runtime.evaluate", {{"expression", probe_js}, {"returnByValue", true}}, session)) {
      const json& v = r["result"];
      if (v.contains("value") && v["value"].is_string()) page.probe = json::parse(v["value"].get<std::string>(), nullptr, false);
    }
    if (call("Runtime.evaluate", {{"expression", "document.documentElement.outerHTML"}, {"returnByValue", true}},
             session))
      page.dom = r["result"].value("value", "");
    if (call("Page.captureScreenshot", {{"format", "png"}}, session))
      page.screenshot_png = Base64Decode(r.value("data", ""));
  }
  std::string keep_error = page.error;
  call("Target.closeTarget", {{"targetId", target}}, "");
  page.error = keep_error;
  pages_.erase(session);
  return page;
}

std::string Base64Decode(const std::string& in) {
  static const std::string kChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    size_t v = kChars.find(c);
    if (v == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

bool DecodePng(const std::string& png, int* width, int* height, std::vector<uint8_t>* rgba, std::string* error) {
  auto u32 = [&](size_t at) {
    return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
           (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
  };
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    *error = "not a PNG";
    return false;
  }
  size_t pos = 8;
  int depth = 0, color = 0, interlace = 0;
  std::string idat;
  while (pos + 8 <= png.size()) {
    uint32_t len = u32(pos);
    std::string type = png.substr(pos + 4, 4);
    if (pos + 12 + len > png.size()) {
      *error = "truncated chunk";
      return false;
    }
    if (type == "IHDR") {
      *width = static_cast<int>(u32(pos + 8));
      *height = static_cast<int>(u32(pos + 12));
      depth = uint8_t(png[pos + 16]);
      color = uint8_t(png[pos + 17]);
      interlace = uint8_t(png[pos + 20]);
    } else if (type == "IDAT") {
      idat.append(png, pos + 8, len);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + len;
  }
  if (depth != 8 || (color != 2 && color != 6) || interlace != 0) {
    *error = "unsupported PNG (depth " + std::to_string(depth) + ", colour type " + std::to_string(color) + ")";
    return false;
  }
  const size_t channels = color == 6 ? 4 : 3;
  const size_t stride = static_cast<size_t>(*width) * channels;
  std::vector<uint8_t> raw((stride + 1) * static_cast<size_t>(*height));
  z_stream zs{};
  zs.next_in = reinterpret_cast<Bytef*>(idat.data());
  zs.avail_in = static_cast<uInt>(idat.size());
  zs.next_out = raw.data();
  zs.avail_out = static_cast<uInt>(raw.size());
  if (inflateInit(&zs) != Z_OK) return *error = "inflateInit", false;
  int z = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  if (z != Z_STREAM_END || zs.avail_out != 0) {
    *error = "bad image data";
    return false;
  }
  // Undo the per-row filters (PNG spec 9.2).
  std::vector<uint8_t> cur(stride), prev(stride, 0);
  rgba->assign(static_cast<size_t>(*width) * static_cast<size_t>(*height) * 4, 255);
  for (int y = 0; y < *height; ++y) {
    const uint8_t* row = raw.data() + static_cast<size_t>(y) * (stride + 1);
    uint8_t filter = row[0];
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= channels ? cur[i - channels] : 0, b = prev[i], c = i >= channels ? prev[i - channels] : 0;
      int x = row[1 + i], v;
      switch (filter) {
        case 0: v = x; break;
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + (a + b) / 2; break;
        case 4: {
          int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: *error = "bad filter"; return false;
      }
      cur[i] = static_cast<uint8_t>(v & 0xFF);
    }
    for (int px = 0; px < *width; ++px)
      for (size_t ch = 0; ch < channels; ++ch)
        (*rgba)[(static_cast<size_t>(y) * *width + px) * 4 + ch] = cur[static_cast<size_t>(px) * channels + ch];
    std::swap(cur, prev);
  }
  return true;
}

}  // namespace ampscope::testing
