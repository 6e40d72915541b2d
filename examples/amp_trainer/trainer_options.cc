#include "trainer_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <vector>

namespace amp_trainer {
namespace {

bool ParseInt(const std::string& text, int64_t min_value, int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0' || value < min_value) return false;
  *out = static_cast<int64_t>(value);
  return true;
}

bool ParseDouble(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == nullptr || *end != '\0' || !std::isfinite(value)) return false;
  *out = value;
  return true;
}

// One row per flag: the parser is this table, not a chain of ifs.
struct FlagSpec {
  const char* name;
  const char* value_name;  // nullptr: a switch without a value
  const char* help;
  // Applies the value; returns false when it is invalid.
  std::function<bool(const std::string&, TrainerOptions*)> apply;
};

std::function<bool(const std::string&, TrainerOptions*)> IntFlag(int64_t TrainerOptions::*field,
                                                                 int64_t min_value) {
  return [field, min_value](const std::string& v, TrainerOptions* o) {
    return ParseInt(v, min_value, &(o->*field));
  };
}

std::function<bool(const std::string&, TrainerOptions*)> SizeFlag(int64_t ModelSizes::*field) {
  return [field](const std::string& v, TrainerOptions* o) {
    return ParseInt(v, 1, &(o->sizes.*field));
  };
}

std::function<bool(const std::string&, TrainerOptions*)> PositiveDouble(double TrainerOptions::*field) {
  return [field](const std::string& v, TrainerOptions* o) {
    double value = 0;
    if (!ParseDouble(v, &value) || value <= 0) return false;
    o->*field = value;
    return true;
  };
}

std::function<bool(const std::string&, TrainerOptions*)> Switch(bool TrainerOptions::*field, bool value) {
  return [field, value](const std::string&, TrainerOptions* o) {
    o->*field = value;
    return true;
  };
}

const std::vector<FlagSpec>& Flags() {
  static const std::vector<FlagSpec> flags = {
      {"--steps", "N", "training steps (default 20)", IntFlag(&TrainerOptions::steps, 1)},
      {"--batch", "B", "samples per step (default 8 on CPU, 16 on CUDA)", SizeFlag(&ModelSizes::batch)},
      {"--device", "cpu|cuda|auto", "where to train (default auto: CUDA when available)",
       [](const std::string& v, TrainerOptions* o) {
         if (v != "cpu" && v != "cuda" && v != "auto") return false;
         o->device = v;
         return true;
       }},
      {"--dtype", "fp16|bf16", "autocast dtype (default fp16 on CUDA, bf16 on CPU)",
       [](const std::string& v, TrainerOptions* o) {
         if (v != "fp16" && v != "bf16") return false;
         o->dtype = v;
         return true;
       }},
      {"--vocab", "V", "vocabulary = output head width (default 512 CPU, 8192 CUDA)", SizeFlag(&ModelSizes::vocab)},
      {"--dim", "D", "model width (default 128 CPU, 1024 CUDA)", SizeFlag(&ModelSizes::dim)},
      {"--seq", "T", "tokens per sample (default 32 CPU, 256 CUDA)", SizeFlag(&ModelSizes::seq)},
      {"--layers", "L", "transformer blocks (default 2 CPU, 4 CUDA)", SizeFlag(&ModelSizes::layers)},
      {"--heads", "H", "attention heads; must divide --dim (default 4 CPU, 16 CUDA)", SizeFlag(&ModelSizes::heads)},
      {"--seed", "S", "random seed for weights and data (default 1234)",
       [](const std::string& v, TrainerOptions* o) {
         int64_t seed = 0;
         if (!ParseInt(v, 0, &seed)) return false;
         o->seed = static_cast<uint64_t>(seed);
         return true;
       }},
      {"--lr", "LR", "AdamW learning rate (default 1e-3)", PositiveDouble(&TrainerOptions::lr)},
      {"--threads", "N", "CPU intra-op threads (default: LibTorch's choice)",
       [](const std::string& v, TrainerOptions* o) {
         int64_t threads = 0;
         if (!ParseInt(v, 1, &threads) || threads > 4096) return false;
         o->threads = static_cast<int>(threads);
         return true;
       }},
      {"--init-scale", "S", "PLANTED when too large: GradScaler initial scale (default 65536)",
       [](const std::string& v, TrainerOptions* o) {
         // The scale is a float32 tensor, as in PyTorch.
         double value = 0;
         if (!ParseDouble(v, &value) || value <= 0 || value > std::numeric_limits<float>::max()) return false;
         o->init_scale = value;
         return true;
       }},
      {"--growth-interval", "N", "GradScaler growth interval (default 2000)",
       IntFlag(&TrainerOptions::growth_interval, 1)},
      {"--no-scaler", nullptr, "train without a GradScaler", Switch(&TrainerOptions::scaler, false)},
      {"--sync-every", "N", "PLANTED: loss.item() host sync every N steps", IntFlag(&TrainerOptions::sync_every, 0)},
      {"--fp32-head", nullptr, "PLANTED: output head outside autocast, in fp32", Switch(&TrainerOptions::fp32_head, true)},
      {"--no-autocast", nullptr, "PLANTED: plain fp32 training, no autocast, no GradScaler",
       Switch(&TrainerOptions::no_autocast, true)},
      {"--alloc-churn", nullptr, "PLANTED: allocate/free large tensors every step (emptyCache on CUDA)",
       Switch(&TrainerOptions::alloc_churn, true)},
      {"--loader-delay-ms", "N", "PLANTED: data loader sleeps N ms at the start of every step",
       IntFlag(&TrainerOptions::loader_delay_ms, 0)},
      {"--overflow-at-step", "N", "PLANTED: step N's gradients overflow to inf (the step is skipped)",
       IntFlag(&TrainerOptions::overflow_at_step, 0)},
      {"--quiet", nullptr, "print only the header and the final summary", Switch(&TrainerOptions::quiet, true)},
  };
  return flags;
}

}  // namespace

std::string TrainerUsage(const char* argv0) {
  std::ostringstream out;
  out << "usage: " << argv0 << " [options]\n"
      << "A small transformer LM trained with automatic mixed precision on synthetic data.\n"
      << "NVTX ranges: step > dataloader, forward, [alloc_churn], loss, backward, optimizer.\n\n";
  for (const FlagSpec& flag : Flags()) {
    std::string left = std::string("  ") + flag.name;
    if (flag.value_name != nullptr) left += std::string(" ") + flag.value_name;
    if (left.size() < 30) left.resize(30, ' ');
    out << left << " " << flag.help << "\n";
  }
  out << "  --help                       this text\n";
  return out.str();
}

ParseResult ParseTrainerOptions(int argc, char** argv, TrainerOptions* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseResult::kHelp;
    std::string value;
    bool has_inline_value = false;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& flag : Flags()) {
      if (arg == flag.name) spec = &flag;
    }
    if (spec == nullptr) {
      *error = "unknown option '" + arg + "' (see --help)";
      return ParseResult::kError;
    }
    if (spec->value_name == nullptr) {
      if (has_inline_value) {
        *error = "option " + arg + " takes no value";
        return ParseResult::kError;
      }
    } else if (!has_inline_value) {
      if (i + 1 >= argc) {
        *error = "option " + arg + " needs a value (" + spec->value_name + ")";
        return ParseResult::kError;
      }
      value = argv[++i];
    }
    if (!spec->apply(value, options)) {
      *error = "invalid value '" + value + "' for " + arg + " (expected " + spec->value_name + ")";
      return ParseResult::kError;
    }
  }
  if (options->sizes.dim > 0 && options->sizes.heads > 0 && options->sizes.dim % options->sizes.heads != 0) {
    *error = "--heads must divide --dim";
    return ParseResult::kError;
  }
  return ParseResult::kOk;
}

void ResolveSizes(bool cuda, ModelSizes* sizes) {
  // CPU: about 0.5 M parameters, tens of ms per step on one core. CUDA: about 67 M parameters and
  // 4096 tokens per step, so the GEMMs are large enough to run on Tensor Cores for real.
  const ModelSizes defaults = cuda ? ModelSizes{8192, 1024, 256, 4, 16, 16} : ModelSizes{512, 128, 32, 2, 4, 8};
  if (sizes->vocab < 0) sizes->vocab = defaults.vocab;
  if (sizes->dim < 0) sizes->dim = defaults.dim;
  if (sizes->seq < 0) sizes->seq = defaults.seq;
  if (sizes->layers < 0) sizes->layers = defaults.layers;
  if (sizes->heads < 0) {
    sizes->heads = defaults.heads;
    // Keep the default usable with a custom --dim.
    while (sizes->heads > 1 && sizes->dim % sizes->heads != 0) --sizes->heads;
  }
  if (sizes->batch < 0) sizes->batch = defaults.batch;
}

}  // namespace amp_trainer
