// The .amptrace on-disk layout (specified byte by byte in docs/amptrace.md).
//
// An .amptrace file is what the collector (collector/, libampscope_inject.so) writes for one
// process: a header, then typed chunks of fixed-size records plus string and warning chunks,
// then a footer chunk that marks a clean end. Everything is little-endian. The structs below
// ARE the layout (no padding the compiler chooses: every struct is a multiple of 8 bytes with
// explicit pad fields, and static_asserts pin sizes and offsets), so they are written and read
// with memcpy. Nothing here depends on CUPTI: the enum values that mirror CUPTI's are copied
// here and the collector checks them against CUPTI's headers with static_asserts.
//
// Units: every *_ns field is int64 nanoseconds. GPU and API timestamps are on CUPTI's clock;
// NVTX event timestamps are CLOCK_REALTIME (see AmpNvtxEvent). Byte counts are bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ampscope {

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .amptrace writer and reader memcpy little-endian structs; port them before using a big-endian host"
#endif

inline constexpr char kAmptraceMagic[8] = {'A', 'M', 'P', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint16_t kAmptraceVersionMajor = 1;  // readers reject other majors
inline constexpr uint16_t kAmptraceVersionMinor = 1;  // additive changes only (1: kStepNumber)
inline constexpr uint32_t kAmptraceChunkMagic = 0x4B4E4843u;  // "CHNK" read as bytes
// Upper bound on one chunk's payload: the writer splits larger batches, and the reader treats
// a header announcing more as corrupt instead of allocating it.
inline constexpr uint32_t kAmptraceMaxChunkPayload = 64u << 20;
inline constexpr uint32_t kAmptraceWriterChunkPayload = 4u << 20;  // what the writer aims for

// ---------------------------------------------------------------------------------------
// File header: a fixed part followed by the host name and command line bytes, then zero
// padding up to header_bytes (a multiple of 8). The first chunk starts at header_bytes.

struct AmpFileHeader {
  char magic[8];                 // "AMPTRACE"
  uint16_t version_major;
  uint16_t version_minor;
  uint32_t header_bytes;         // fixed part + host + command line + padding
  uint32_t cupti_version;        // cuptiGetVersion() at start, 0 = CUPTI not loaded yet
  uint32_t pid;
  int32_t rank;                  // RANK, -1 unknown
  int32_t local_rank;            // LOCAL_RANK, -1 unknown
  int32_t world_size;            // WORLD_SIZE, -1 unknown
  uint32_t flags;                // kAmpHeaderFlag*
  int64_t start_cupti_ns;        // calibration pair at start; 0 when CUPTI was not loaded
  int64_t start_monotonic_ns;    // CLOCK_MONOTONIC
  int64_t start_realtime_ns;     // CLOCK_REALTIME
  uint32_t driver_version;       // cuDriverGetVersion, 0 unknown
  uint32_t header_crc32;         // CRC-32 of header_bytes bytes with this field set to 0
  uint32_t host_bytes;           // length of the host name that follows the fixed part
  uint32_t command_line_bytes;   // length of the command line after the host name
};
static_assert(sizeof(AmpFileHeader) == 80, "AmpFileHeader layout changed: update docs/amptrace.md");
static_assert(offsetof(AmpFileHeader, start_cupti_ns) == 40, "AmpFileHeader layout");
static_assert(offsetof(AmpFileHeader, header_crc32) == 68, "AmpFileHeader layout");

inline constexpr uint32_t kAmpHeaderFlagNvtxRealtime = 1u << 0;  // NVTX timestamps are CLOCK_REALTIME

// ---------------------------------------------------------------------------------------
// Chunks

enum class AmpChunkType : uint16_t {
  kStrings = 1,    // variable: {u32 id, u32 length, bytes}...; ids are file-global, 0 = ""
  kWarnings = 2,   // variable: {u16 severity, u16 code_length, u32 message_length, code, message}...
  kStats = 3,      // AmpStatsRecord (running totals; the last one wins)
  kClock = 4,      // AmpClockRecord
  kDevice = 5,     // AmpDeviceRecord
  kContext = 6,    // AmpContextRecord
  kName = 7,       // AmpNameRecord
  kKernel = 16,    // AmpKernelRecord
  kMemcpy = 17,    // AmpMemcpyRecord
  kMemset = 18,    // AmpMemsetRecord
  kApi = 19,       // AmpApiRecord
  kSync = 20,      // AmpSyncRecord
  kMemory = 21,    // AmpMemoryRecord
  kOverhead = 22,  // AmpOverheadRecord
  kNvtx = 23,      // AmpNvtxEvent
  kCounter = 24,   // AmpCounterRecord
  kFooter = 0x7FFF,  // AmpFooterRecord, exactly one record, last thing in a cleanly closed file
};

struct AmpChunkHeader {
  uint32_t magic;          // kAmptraceChunkMagic
  uint16_t type;           // AmpChunkType
  uint16_t record_size;    // bytes per record; 0 for variable-length chunks (strings, warnings)
  uint32_t record_count;
  uint32_t payload_bytes;  // == record_size * record_count for fixed-size chunks
  uint32_t payload_crc32;  // CRC-32 of the payload
  uint32_t header_crc32;   // CRC-32 of the 20 bytes above
};
static_assert(sizeof(AmpChunkHeader) == 24, "AmpChunkHeader layout changed: update docs/amptrace.md");

enum class AmpSeverity : uint16_t { kInfo = 0, kWarning = 1, kError = 2 };

// ---------------------------------------------------------------------------------------
// Records. A reader accepts record_size >= sizeof(struct) (newer writers may append fields;
// the reader uses the prefix it knows) and skips a chunk whose record_size is smaller.

// Mirrors CUpti_ActivityMemcpyKind (checked in collector/record_converter.cc).
enum class AmpMemcpyKind : uint8_t {
  kUnknown = 0, kHtoD = 1, kDtoH = 2, kHtoA = 3, kAtoH = 4, kAtoA = 5, kAtoD = 6, kDtoA = 7,
  kDtoD = 8, kHtoH = 9, kPtoP = 10,
};
// Mirrors CUpti_ActivityMemoryKind.
enum class AmpMemoryKind : uint8_t {
  kUnknown = 0, kPageable = 1, kPinned = 2, kDevice = 3, kArray = 4, kManaged = 5,
  kDeviceStatic = 6, kManagedStatic = 7,
};
// Mirrors CUpti_ActivitySynchronizationType.
enum class AmpSyncType : uint8_t {
  kUnknown = 0, kEventSynchronize = 1, kStreamWaitEvent = 2, kStreamSynchronize = 3, kContextSynchronize = 4,
};
enum class AmpApiDomain : uint8_t { kRuntime = 0, kDriver = 1 };
enum class AmpMemoryOp : uint8_t { kUnknown = 0, kAllocation = 1, kRelease = 2 };  // mirrors CUPTI
// Mirrors CUpti_ActivityObjectKind.
enum class AmpObjectKind : uint8_t { kUnknown = 0, kProcess = 1, kThread = 2, kDevice = 3, kContext = 4, kStream = 5 };

struct AmpKernelRecord {  // CONCURRENT_KERNEL
  int64_t start_ns;
  int64_t end_ns;
  uint32_t correlation;
  uint32_t device;
  uint32_t context;
  uint32_t stream;
  int32_t grid[3];
  int32_t block[3];
  int32_t registers_per_thread;
  int32_t static_shared_bytes;
  int32_t dynamic_shared_bytes;
  uint32_t name;           // string id
  uint32_t graph_id;       // 0 = not a graph launch
  uint32_t pad;
  uint64_t graph_node_id;
};
static_assert(sizeof(AmpKernelRecord) == 88, "AmpKernelRecord layout changed: update docs/amptrace.md");

inline constexpr uint8_t kAmpMemcpyFlagAsync = 1u << 0;

struct AmpMemcpyRecord {  // MEMCPY and MEMCPY2 (peer-to-peer)
  int64_t start_ns;
  int64_t end_ns;
  uint64_t bytes;
  uint32_t correlation;
  uint32_t device;
  uint32_t context;
  uint32_t stream;
  uint32_t src_device;     // peer copies; == device otherwise
  uint32_t dst_device;
  uint8_t copy_kind;       // AmpMemcpyKind
  uint8_t src_kind;        // AmpMemoryKind
  uint8_t dst_kind;        // AmpMemoryKind
  uint8_t flags;           // kAmpMemcpyFlag*
  uint32_t graph_id;
};
static_assert(sizeof(AmpMemcpyRecord) == 56, "AmpMemcpyRecord layout changed: update docs/amptrace.md");

struct AmpMemsetRecord {  // MEMSET
  int64_t start_ns;
  int64_t end_ns;
  uint64_t bytes;
  uint32_t correlation;
  uint32_t device;
  uint32_t context;
  uint32_t stream;
  uint32_t value;
  uint8_t memory_kind;     // AmpMemoryKind
  uint8_t flags;           // bit 0: async
  uint16_t pad;
};
static_assert(sizeof(AmpMemsetRecord) == 48, "AmpMemsetRecord layout changed: update docs/amptrace.md");

struct AmpApiRecord {  // RUNTIME / DRIVER
  int64_t start_ns;
  int64_t end_ns;
  uint32_t correlation;
  uint32_t cbid;           // CUPTI callback id in its domain
  uint32_t pid;
  uint32_t tid;            // CUPTI's threadId (the OS thread id on Linux)
  uint32_t name;           // string id of the API name (cuptiGetCallbackName), 0 unknown
  uint32_t return_value;
  uint8_t domain;          // AmpApiDomain
  uint8_t pad[7];
};
static_assert(sizeof(AmpApiRecord) == 48, "AmpApiRecord layout changed: update docs/amptrace.md");

struct AmpSyncRecord {  // SYNCHRONIZATION
  int64_t start_ns;
  int64_t end_ns;
  uint32_t correlation;    // joins the API call (and so its thread)
  uint32_t context;        // joins AmpContextRecord (and so the device)
  uint32_t stream;         // 0xFFFFFFFF = not a stream sync
  uint32_t cuda_event_id;
  uint8_t type;            // AmpSyncType
  uint8_t pad[7];
};
static_assert(sizeof(AmpSyncRecord) == 40, "AmpSyncRecord layout changed: update docs/amptrace.md");

struct AmpMemoryRecord {  // MEMORY2 (cudaMalloc / cudaFree and friends)
  int64_t time_ns;
  uint64_t address;
  uint64_t bytes;
  uint32_t correlation;
  uint32_t device;
  uint32_t context;
  uint32_t stream;
  uint8_t op;              // AmpMemoryOp
  uint8_t memory_kind;     // AmpMemoryKind
  uint8_t is_async;
  uint8_t pad[5];
};
static_assert(sizeof(AmpMemoryRecord) == 48, "AmpMemoryRecord layout changed: update docs/amptrace.md");

struct AmpOverheadRecord {  // OVERHEAD (CUPTI's own cost, driver compiler, lazy loading, ...)
  int64_t start_ns;
  int64_t end_ns;
  uint32_t overhead_kind;  // CUpti_ActivityOverheadKind value
  uint32_t name;           // string id of a readable kind name
  uint8_t object_kind;     // AmpObjectKind
  uint8_t pad[7];
  uint64_t object_id;      // thread id for kThread, (device << 32 | context) for kDevice/kContext
};
static_assert(sizeof(AmpOverheadRecord) == 40, "AmpOverheadRecord layout changed: update docs/amptrace.md");

// NVTX: one record per API call, in call order. The reader rebuilds ranges: push/pop nest per
// (thread, domain); start/end pair by id. Timestamps are CLOCK_REALTIME (the header flag says
// so); the reader moves them onto the CUPTI clock with the calibration pairs when they differ.
// kStepNumber (minor version 1) is no NVTX call: the collector writes it just before the
// push/start of a step range inside a --steps window, on the same thread, with the step's own
// number in range_id, so steps keep their numbers after the window cut the ones before.
// Readers that do not know it skip it.
enum class AmpNvtxType : uint8_t { kPush = 1, kPop = 2, kStart = 3, kEnd = 4, kMark = 5, kStepNumber = 6 };

struct AmpNvtxEvent {
  int64_t time_ns;
  uint64_t range_id;       // start/end: the id NVTX returned; kStepNumber: the number; 0 for push/pop/mark
  uint32_t tid;            // OS thread id (gettid)
  uint32_t name;           // string id; 0 for pop/end
  uint32_t domain;         // string id; 0 = default domain
  uint8_t type;            // AmpNvtxType
  uint8_t pad[3];
};
static_assert(sizeof(AmpNvtxEvent) == 32, "AmpNvtxEvent layout changed: update docs/amptrace.md");

struct AmpCounterRecord {  // sampled counters, e.g. "tensor_active_pct" from PM sampling
  int64_t time_ns;
  double value;
  uint32_t name;           // string id
  int32_t device;
};
static_assert(sizeof(AmpCounterRecord) == 24, "AmpCounterRecord layout changed: update docs/amptrace.md");

struct AmpClockRecord {  // a calibration pair taken at one moment
  int64_t cupti_ns;        // cuptiGetTimestamp(), 0 when CUPTI is not loaded
  int64_t monotonic_ns;
  int64_t realtime_ns;
};
static_assert(sizeof(AmpClockRecord) == 24, "AmpClockRecord layout changed: update docs/amptrace.md");

struct AmpDeviceRecord {  // DEVICE
  uint32_t id;
  uint32_t cc_major;
  uint32_t cc_minor;
  uint32_t sm_count;
  uint64_t global_memory_bytes;
  uint64_t global_memory_bandwidth_kbs;  // KB/s as CUPTI reports it
  uint32_t max_warps_per_sm;
  uint32_t threads_per_warp;
  uint32_t max_registers_per_sm;
  uint32_t max_shared_memory_per_sm;   // bytes
  uint32_t core_clock_khz;
  uint32_t name;                       // string id
  uint8_t uuid[16];
};
static_assert(sizeof(AmpDeviceRecord) == 72, "AmpDeviceRecord layout changed: update docs/amptrace.md");

struct AmpContextRecord {  // CONTEXT
  uint32_t context;
  uint32_t device;
  uint32_t null_stream;
  uint32_t pad;
};
static_assert(sizeof(AmpContextRecord) == 16, "AmpContextRecord layout changed: update docs/amptrace.md");

struct AmpNameRecord {  // NAME (thread, device, context, stream names)
  uint64_t object_id;      // as in AmpOverheadRecord
  uint32_t name;           // string id
  uint8_t object_kind;     // AmpObjectKind
  uint8_t pad[3];
};
static_assert(sizeof(AmpNameRecord) == 16, "AmpNameRecord layout changed: update docs/amptrace.md");

// Running totals the collector writes at every periodic flush; the footer repeats the final one.
struct AmpStatsRecord {
  uint64_t records_written;        // records in fixed-size chunks before this one
  uint64_t cupti_dropped_records;  // cuptiActivityGetNumDroppedRecords, summed
  uint64_t buffers_refused;        // CUPTI buffer requests refused: the bounded pool was empty
  uint64_t nvtx_events_dropped;    // NVTX events dropped: the pending queue was full
  uint64_t records_filtered;       // noisy API records skipped on purpose (cudaGetDevice, ...)
  uint64_t buffers_completed;
  int64_t realtime_ns;             // when these totals were taken
  uint64_t unknown_records;        // CUPTI records of kinds the collector does not convert
};
static_assert(sizeof(AmpStatsRecord) == 64, "AmpStatsRecord layout changed: update docs/amptrace.md");

struct AmpFooterRecord {
  AmpStatsRecord stats;
  AmpClockRecord end_clock;
  uint32_t chunk_count;            // chunks before the footer
  uint32_t flags;                  // kAmpFooterFlag*
};
static_assert(sizeof(AmpFooterRecord) == 96, "AmpFooterRecord layout changed: update docs/amptrace.md");

inline constexpr uint32_t kAmpFooterFlagCuptiActive = 1u << 0;  // CUDA activity was being recorded
inline constexpr uint32_t kAmpFooterFlagSignal = 1u << 1;       // closed from a SIGINT/SIGTERM handler

// Record type -> chunk type, for the writer's Append<T>.
template <typename T> struct AmpChunkTypeOf;
template <> struct AmpChunkTypeOf<AmpKernelRecord> { static constexpr AmpChunkType kType = AmpChunkType::kKernel; };
template <> struct AmpChunkTypeOf<AmpMemcpyRecord> { static constexpr AmpChunkType kType = AmpChunkType::kMemcpy; };
template <> struct AmpChunkTypeOf<AmpMemsetRecord> { static constexpr AmpChunkType kType = AmpChunkType::kMemset; };
template <> struct AmpChunkTypeOf<AmpApiRecord> { static constexpr AmpChunkType kType = AmpChunkType::kApi; };
template <> struct AmpChunkTypeOf<AmpSyncRecord> { static constexpr AmpChunkType kType = AmpChunkType::kSync; };
template <> struct AmpChunkTypeOf<AmpMemoryRecord> { static constexpr AmpChunkType kType = AmpChunkType::kMemory; };
template <> struct AmpChunkTypeOf<AmpOverheadRecord> { static constexpr AmpChunkType kType = AmpChunkType::kOverhead; };
template <> struct AmpChunkTypeOf<AmpNvtxEvent> { static constexpr AmpChunkType kType = AmpChunkType::kNvtx; };
template <> struct AmpChunkTypeOf<AmpCounterRecord> { static constexpr AmpChunkType kType = AmpChunkType::kCounter; };
template <> struct AmpChunkTypeOf<AmpClockRecord> { static constexpr AmpChunkType kType = AmpChunkType::kClock; };
template <> struct AmpChunkTypeOf<AmpDeviceRecord> { static constexpr AmpChunkType kType = AmpChunkType::kDevice; };
template <> struct AmpChunkTypeOf<AmpContextRecord> { static constexpr AmpChunkType kType = AmpChunkType::kContext; };
template <> struct AmpChunkTypeOf<AmpNameRecord> { static constexpr AmpChunkType kType = AmpChunkType::kName; };
template <> struct AmpChunkTypeOf<AmpStatsRecord> { static constexpr AmpChunkType kType = AmpChunkType::kStats; };

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib's crc32). `crc` chains calls:
// pass the previous result to continue, 0 to start.
uint32_t AmptraceCrc32(const void* data, size_t size, uint32_t crc = 0);

}  // namespace ampscope
