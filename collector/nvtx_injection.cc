#include "collector/nvtx_injection.h"

#include <cwchar>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "collector/process.h"

namespace ampscope::collector {

namespace {

// Domain and registered-string handles are pointers to strings we own. They live until the
// process ends (NVTX never says when a handle is last used).
struct DomainRecord {
  std::string name;
};
std::mutex g_handles_mu;
std::deque<DomainRecord> g_domains;
std::unordered_set<std::string> g_registered_strings;

std::string Utf8(const wchar_t* w) {
  std::string out;
  if (w == nullptr) return out;
  for (; *w != 0; ++w) {
    auto c = static_cast<uint32_t>(*w);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | ((c >> 18) & 0x07));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string_view DomainName(nvtxDomainHandle_t d) {
  return d == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const DomainRecord*>(d)->name);
}

// The message of an event attribute, as UTF-8. `scratch` holds converted wide strings.
std::string_view Message(const nvtxEventAttributes_t* a, std::string* scratch) {
  if (a == nullptr) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii != nullptr ? std::string_view(a->message.ascii) : std::string_view();
    case NVTX_MESSAGE_TYPE_UNICODE: *scratch = Utf8(a->message.unicode); return *scratch;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered != nullptr
                 ? std::string_view(*reinterpret_cast<const std::string*>(a->message.registered))
                 : std::string_view();
    default: return {};
  }
}

thread_local int t_depth = 0;  // push/pop nesting on this thread, for NVTX's return values

// ---- CORE ----
void NVTX_API MarkEx(const nvtxEventAttributes_t* a) {
  if (Session* s = CurrentSession()) {
    std::string scratch;
    s->NvtxMark(Message(a, &scratch), {});
  }
}
void NVTX_API MarkA(const char* m) {
  if (Session* s = CurrentSession()) s->NvtxMark(m != nullptr ? m : "", {});
}
void NVTX_API MarkW(const wchar_t* m) {
  if (Session* s = CurrentSession()) s->NvtxMark(Utf8(m), {});
}
nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* a) {
  Session* s = CurrentSession();
  if (s == nullptr) return 0;
  std::string scratch;
  return s->NvtxStart(Message(a, &scratch), {});
}
nvtxRangeId_t NVTX_API RangeStartA(const char* m) {
  Session* s = CurrentSession();
  return s != nullptr ? s->NvtxStart(m != nullptr ? m : "", {}) : 0;
}
nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* m) {
  Session* s = CurrentSession();
  return s != nullptr ? s->NvtxStart(Utf8(m), {}) : 0;
}
void NVTX_API RangeEnd(nvtxRangeId_t id) {
  if (Session* s = CurrentSession()) s->NvtxEnd(id);
}
int NVTX_API RangePushEx(const nvtxEventAttributes_t* a) {
  if (Session* s = CurrentSession()) {
    std::string scratch;
    s->NvtxPush(Message(a, &scratch), {});
  }
  return t_depth++;
}
int NVTX_API RangePushA(const char* m) {
  if (Session* s = CurrentSession()) s->NvtxPush(m != nullptr ? m : "", {});
  return t_depth++;
}
int NVTX_API RangePushW(const wchar_t* m) {
  if (Session* s = CurrentSession()) s->NvtxPush(Utf8(m), {});
  return t_depth++;
}
int NVTX_API RangePop() {
  if (Session* s = CurrentSession()) s->NvtxPop({});
  return t_depth > 0 ? --t_depth : -1;
}
void NVTX_API NameOsThreadA(uint32_t tid, const char* name) {
  if (Session* s = CurrentSession(); s != nullptr && name != nullptr) s->NameThread(tid, name);
}
void NVTX_API NameOsThreadW(uint32_t tid, const wchar_t* name) {
  if (Session* s = CurrentSession(); s != nullptr && name != nullptr) s->NameThread(tid, Utf8(name));
}

// ---- CORE2 (domains; nvtx3.hpp and PyTorch's domain-aware code use these) ----
void NVTX_API DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  if (Session* s = CurrentSession()) {
    std::string scratch;
    s->NvtxMark(Message(a, &scratch), DomainName(d));
  }
}
nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  Session* s = CurrentSession();
  if (s == nullptr) return 0;
  std::string scratch;
  return s->NvtxStart(Message(a, &scratch), DomainName(d));
}
void NVTX_API DomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) {
  if (Session* s = CurrentSession()) s->NvtxEnd(id);
}
int NVTX_API DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  if (Session* s = CurrentSession()) {
    std::string scratch;
    s->NvtxPush(Message(a, &scratch), DomainName(d));
  }
  return t_depth++;
}
int NVTX_API DomainRangePop(nvtxDomainHandle_t d) {
  if (Session* s = CurrentSession()) s->NvtxPop(DomainName(d));
  return t_depth > 0 ? --t_depth : -1;
}
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* str) {
  std::lock_guard<std::mutex> lock(g_handles_mu);
  const std::string& kept = *g_registered_strings.insert(str != nullptr ? str : "").first;
  return reinterpret_cast<nvtxStringHandle_t>(const_cast<std::string*>(&kept));
}
nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* str) {
  std::lock_guard<std::mutex> lock(g_handles_mu);
  const std::string& kept = *g_registered_strings.insert(Utf8(str)).first;
  return reinterpret_cast<nvtxStringHandle_t>(const_cast<std::string*>(&kept));
}
nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) {
  std::lock_guard<std::mutex> lock(g_handles_mu);
  g_domains.push_back(DomainRecord{name != nullptr ? name : ""});
  return reinterpret_cast<nvtxDomainHandle_t>(&g_domains.back());
}
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) {
  std::lock_guard<std::mutex> lock(g_handles_mu);
  g_domains.push_back(DomainRecord{Utf8(name)});
  return reinterpret_cast<nvtxDomainHandle_t>(&g_domains.back());
}
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}  // handles stay valid: events may still name them

template <typename Fn>
void Set(NvtxFunctionTable table, unsigned int size, unsigned int id, Fn fn) {
  if (id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

}  // namespace

int InstallNvtxInjection(NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr || CollectorDisabled()) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return 0;
  // The session (and file) exist from the first NVTX call on; see EnsureSessionForNvtx.
  EnsureSessionForNvtx();

  NvtxFunctionTable core = nullptr;
  unsigned int core_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) || core == nullptr) return 0;
  Set(core, core_size, NVTX_CBID_CORE_MarkEx, &MarkEx);
  Set(core, core_size, NVTX_CBID_CORE_MarkA, &MarkA);
  Set(core, core_size, NVTX_CBID_CORE_MarkW, &MarkW);
  Set(core, core_size, NVTX_CBID_CORE_RangeStartEx, &RangeStartEx);
  Set(core, core_size, NVTX_CBID_CORE_RangeStartA, &RangeStartA);
  Set(core, core_size, NVTX_CBID_CORE_RangeStartW, &RangeStartW);
  Set(core, core_size, NVTX_CBID_CORE_RangeEnd, &RangeEnd);
  Set(core, core_size, NVTX_CBID_CORE_RangePushEx, &RangePushEx);
  Set(core, core_size, NVTX_CBID_CORE_RangePushA, &RangePushA);
  Set(core, core_size, NVTX_CBID_CORE_RangePushW, &RangePushW);
  Set(core, core_size, NVTX_CBID_CORE_RangePop, &RangePop);
  Set(core, core_size, NVTX_CBID_CORE_NameOsThreadA, &NameOsThreadA);
  Set(core, core_size, NVTX_CBID_CORE_NameOsThreadW, &NameOsThreadW);

  NvtxFunctionTable core2 = nullptr;
  unsigned int core2_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size) && core2 != nullptr) {
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainMarkEx, &DomainMarkEx);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, &DomainRangeStartEx);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, &DomainRangeEnd);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, &DomainRangePushEx);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, &DomainRangePop);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, &DomainRegisterStringA);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW, &DomainRegisterStringW);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, &DomainCreateA);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainCreateW, &DomainCreateW);
    Set(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy, &DomainDestroy);
  }
  if (const auto* version = static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
      version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion != nullptr)
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  return 1;
}

}  // namespace ampscope::collector
