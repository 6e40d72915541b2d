#!/usr/bin/env bash
# GPU check for the collector (`ampscope record`) and the LibTorch example (examples/amp_trainer).
# Runs on a machine with an NVIDIA GPU, CUDA 13 and PyTorch, and needs no package registry.
# Finishes within 10 minutes: every stage has a timeout, a failed stage is logged and the script
# goes on, and stages that no longer fit the time budget are skipped (and say so).
#
#   scripts/gpu_check.sh [OUTDIR]                 the GPU check (OUTDIR defaults to $OUT, else ./gpu_check_out)
#   scripts/gpu_check.sh --cpu-dry-run [OUTDIR]   no GPU: runs the script's own logic with the CPU trainer
#   scripts/gpu_check.sh --prepare                on the development machine: collect what to carry
#
# What it does on the GPU:
#  (a) scripts/gpu_train.py, a small PyTorch AMP training run (bf16 autocast; fp16 + GradScaler;
#      DataLoader workers; a loss.item() sync every 10 steps), run three ways: plain, under
#      `ampscope record`, and under torch.profiler (Kineto JSON). It compares kernel count and total
#      kernel time of the ampscope and Kineto traces (`ampscope kernels --json`, goal: within 1%),
#      the collector's overhead on step time against the plain run (goal <= 2%), dropped records
#      (goal 0), and Tensor Core activity (`record --tensor-metrics`).
#  (b) examples/amp_trainer built against the wheel's LibTorch: healthy AMP, --sync-every 1,
#      --fp32-head, --init-scale 1e9 (then, if time allows, --alloc-churn, --loader-delay-ms 30,
#      --no-autocast), each recorded and analysed, checking that each planted problem is reported.
# Results in OUTDIR: summary.md, results.json, details.tar.gz (logs, reports, kernel tables,
# session files) and sample_traces/ (recorded traces under 2 MB). At most 8 files.
#
# Getting ampscope onto the GPU machine (it has no registry, so nothing can be installed there):
#   here:   cmake -S . -B build -G Ninja && cmake --build build --target ampscope ampscope_inject
#           scripts/gpu_check.sh --prepare       # -> build-gpu/ (ignored by git, a few MB)
#   there:  carry build-gpu/ and run scripts/gpu_check.sh "$OUT"
# --prepare copies cli/ampscope, collector/libampscope_inject.so and the shared libraries that
# Debian only ships as .so (libfmt, libisal) into build-gpu/; libstdc++ and glibc are the
# system's (the injection library links libstdc++ statically). Without build-gpu/ the script
# looks for build/cli/ampscope, and finally tries to build ampscope there (which needs the
# build dependencies of scripts/setup.sh). The trainer is built there from examples/ against the
# wheel's LibTorch (CMake, ninja and nvcc are in the GPU image), unless AMP_TRAINER names one.
#
# Environment: AMPSCOPE_BIN_DIR (a folder with ampscope and libampscope_inject.so), AMP_TRAINER,
# GPU_CHECK_BUDGET_S (default 540), GPU_CHECK_WORK (scratch folder, empty or absent; default a new
# folder under $TMPDIR),
# PYTHON (default python3).
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

mode=gpu
out_arg=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu-dry-run) mode=cpu ;;
    --prepare) mode=prepare ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "gpu_check.sh: unknown option $1" >&2; exit 2 ;;
    *) out_arg=$1 ;;
  esac
  shift
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}

# ---------------------------------------------------------------------------------------------
# --prepare (development machine): build-gpu/{bin,lib}
# ---------------------------------------------------------------------------------------------
if [ "$mode" = prepare ]; then
  src=${AMPSCOPE_BUILD_DIR:-$ROOT/build}
  dst=$ROOT/build-gpu
  for f in "$src/cli/ampscope" "$src/collector/libampscope_inject.so"; do
    if [ ! -f "$f" ]; then
      echo "gpu_check.sh --prepare: $f is missing; build it first:" >&2
      echo "  cmake -S . -B build -G Ninja && cmake --build build --target ampscope ampscope_inject" >&2
      exit 2
    fi
  done
  rm -rf "$dst"
  mkdir -p "$dst/bin" "$dst/lib"
  cp "$src/cli/ampscope" "$src/collector/libampscope_inject.so" "$dst/bin/"
  # Debug info makes ampscope tens of MB; the carry limit is 64 MiB for everything.
  command -v strip >/dev/null && strip --strip-debug "$dst/bin/ampscope" "$dst/bin/libampscope_inject.so"
  # Libraries the GPU image may lack. The base system (glibc, libstdc++, libgcc_s, zlib) stays.
  ldd "$dst/bin/ampscope" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | ld-linux* | libstdc++.so* | libgcc_s.so* | libz.so*) ;;
      *) cp -L "$lib" "$dst/lib/" && echo "carried $(basename "$lib")" ;;
    esac
  done
  if LD_LIBRARY_PATH="$dst/lib" "$dst/bin/ampscope" --help >/dev/null 2>&1; then
    echo "build-gpu/ ready ($(du -sh "$dst" | cut -f1)): carry it (run tool: carry [\"build-gpu\"])"
  else
    echo "gpu_check.sh --prepare: build-gpu/bin/ampscope does not run here" >&2
    exit 1
  fi
  exit 0
fi

# ---------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------
OUTDIR=${out_arg:-${OUT:-$PWD/gpu_check_out}}
mkdir -p "$OUTDIR" || { echo "gpu_check.sh: cannot create $OUTDIR" >&2; exit 2; }
OUTDIR=$(cd "$OUTDIR" && pwd)
# Scratch space for traces, builds and logs (the Kineto traces are large): a new temporary folder,
# or GPU_CHECK_WORK, which must be empty or absent (this script never deletes a folder it did not make).
if [ -n "${GPU_CHECK_WORK:-}" ]; then
  WORK=$GPU_CHECK_WORK
  if [ -e "$WORK" ] && [ -n "$(ls -A "$WORK" 2>/dev/null)" ]; then
    echo "gpu_check.sh: GPU_CHECK_WORK=$WORK is not empty" >&2
    exit 2
  fi
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX") || { echo "gpu_check.sh: mktemp failed" >&2; exit 2; }
fi
mkdir -p "$WORK"/{logs,rec,prof,stats,kernels,reports,trainer} || { echo "gpu_check.sh: cannot create $WORK" >&2; exit 2; }
BUDGET_S=${GPU_CHECK_BUDGET_S:-540}
RESERVE_S=60  # kept for the evaluation and packing at the end
MAINLOG=$WORK/logs/gpu_check.log
STAGES=$WORK/stages.tsv
printf 'stage\tstatus\trc\tseconds\tnote\n' >"$STAGES"
ORIG_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1

log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$MAINLOG"; }

record_stage() {  # NAME STATUS RC SECONDS NOTE
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5//$'\t'/ }" >>"$STAGES"
}

# run_stage NAME LIMIT_S CMD...: runs CMD with a timeout, output in logs/NAME.log (stdout in
# $STAGE_STDOUT instead when that is set). Returns CMD's exit code; 124 on timeout; 3 when
# skipped for lack of time.
run_stage() {
  local name=$1 limit=$2
  shift 2
  local left=$((BUDGET_S - RESERVE_S - SECONDS))
  if [ "$left" -lt 15 ]; then
    log "skip $name: time budget spent (${SECONDS}s of ${BUDGET_S}s)"
    record_stage "$name" skipped 3 0 "time budget"
    return 3
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local stage_log="$WORK/logs/$name.log" start=$SECONDS rc status
  log ">> $name (limit ${limit}s): $*"
  if [ -n "${STAGE_STDOUT:-}" ]; then
    timeout --kill-after=10 "$limit" "$@" >"$STAGE_STDOUT" 2>"$stage_log"
  else
    timeout --kill-after=10 "$limit" "$@" >"$stage_log" 2>&1
  fi
  rc=$?
  case $rc in
    0) status=ok ;;
    124 | 137) status=timeout ;;
    *) status=fail ;;
  esac
  record_stage "$name" "$status" "$rc" "$((SECONDS - start))" ""
  if [ "$status" != ok ]; then
    log "   $name: $status (rc $rc); last lines:"
    tail -n 5 "$stage_log" | sed 's/^/     /' | tee -a "$MAINLOG"
  else
    log "   $name: ok ($((SECONDS - start))s)"
  fi
  return $rc
}

# Seconds left for stages, for optional work.
time_left() { echo $((BUDGET_S - RESERVE_S - SECONDS)); }

log "gpu_check.sh mode=$mode out=$OUTDIR work=$WORK budget=${BUDGET_S}s root=$ROOT"

# ---------------------------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------------------------
{
  echo "uname: $(uname -a)"
  echo "os: $(grep -h '^PRETTY_NAME=' /etc/os-release 2>/dev/null | cut -d= -f2)"
  echo "nproc: $(nproc)"
  command -v nvidia-smi >/dev/null && timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  [ -x /usr/local/cuda/bin/nvcc ] && /usr/local/cuda/bin/nvcc --version | tail -n 1
  command -v cmake >/dev/null && cmake --version | head -n 1
  command -v ninja >/dev/null && echo "ninja $(ninja --version)"
  timeout 60 "$PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1
} >"$WORK/logs/environment.log" 2>&1
cat "$WORK/logs/environment.log" >>"$MAINLOG"

have_gpu=0
if [ "$mode" = gpu ]; then
  if timeout 60 "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    have_gpu=1
  else
    log "WARNING: PyTorch sees no CUDA device: the GPU stages will fail (use --cpu-dry-run on a machine without a GPU)"
  fi
fi

# ---------------------------------------------------------------------------------------------
# ampscope
# ---------------------------------------------------------------------------------------------
AMPSCOPE_EXE=""
AMPSCOPE_LIBDIR=""
# join_path A B: A:B without empty elements (an empty element would mean the current directory).
join_path() {
  if [ -n "$1" ] && [ -n "$2" ]; then echo "$1:$2"; else echo "$1$2"; fi
}
# ld_env PATH: the `env` arguments that set LD_LIBRARY_PATH to PATH, or unset it when empty.
ld_env() {
  if [ -n "$1" ]; then echo "LD_LIBRARY_PATH=$1"; else echo "-u LD_LIBRARY_PATH"; fi
}
try_ampscope_dir() {  # DIR [LIBDIR]: use DIR/ampscope when it runs and its collector is there
  local dir=$1 libdir=${2:-}
  [ -x "$dir/ampscope" ] || return 1
  [ -d "$libdir" ] || libdir=""
  if [ ! -f "$dir/libampscope_inject.so" ] && [ ! -f "$dir/../collector/libampscope_inject.so" ]; then
    log "found $dir/ampscope but no libampscope_inject.so next to it or in ../collector"
    return 1
  fi
  local lp
  lp=$(join_path "$libdir" "$ORIG_LD_LIBRARY_PATH")
  # shellcheck disable=SC2046  # ld_env's output is two words or one, by design
  env $(ld_env "$lp") "$dir/ampscope" --help >/dev/null 2>&1 || {
    log "found $dir/ampscope but it does not run here:"
    # shellcheck disable=SC2046
    env $(ld_env "$lp") ldd "$dir/ampscope" 2>&1 | grep -i 'not found' | tee -a "$MAINLOG"
    return 1
  }
  AMPSCOPE_EXE=$dir/ampscope
  AMPSCOPE_LIBDIR=$libdir
  return 0
}
if [ -n "${AMPSCOPE_BIN_DIR:-}" ]; then
  try_ampscope_dir "$AMPSCOPE_BIN_DIR" "$AMPSCOPE_BIN_DIR/../lib"
fi
[ -z "$AMPSCOPE_EXE" ] && try_ampscope_dir "$ROOT/build-gpu/bin" "$ROOT/build-gpu/lib"
[ -z "$AMPSCOPE_EXE" ] && try_ampscope_dir "$ROOT/build/cli"
if [ -z "$AMPSCOPE_EXE" ] && [ "$mode" = cpu ]; then
  for d in "$ROOT"/build*/cli; do
    [ -f "$d/../collector/libampscope_inject.so" ] && try_ampscope_dir "$d" && break
  done
fi
if [ -z "$AMPSCOPE_EXE" ] && command -v cmake >/dev/null; then
  log "no usable ampscope binary: building one in $WORK/build-ampscope"
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  run_stage build_ampscope_configure 120 cmake -S "$ROOT" -B "$WORK/build-ampscope" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_TESTS=OFF -DAMPSCOPE_BUILD_BENCH=OFF &&
    run_stage build_ampscope 300 cmake --build "$WORK/build-ampscope" -j "$(nproc)" --target ampscope ampscope_inject &&
    try_ampscope_dir "$WORK/build-ampscope/cli"
fi
if [ -n "$AMPSCOPE_EXE" ]; then
  log "ampscope: $AMPSCOPE_EXE${AMPSCOPE_LIBDIR:+ (libraries from $AMPSCOPE_LIBDIR)}"
  record_stage locate_ampscope ok 0 0 "$AMPSCOPE_EXE"
else
  log "ERROR: no usable ampscope (see --prepare in this script's header); recording stages will fail"
  record_stage locate_ampscope fail 1 0 "no usable ampscope binary"
fi
read -r -a ampscope_ld <<<"$(ld_env "$(join_path "$AMPSCOPE_LIBDIR" "$ORIG_LD_LIBRARY_PATH")")"
AMPSCOPE=(env "${ampscope_ld[@]}" "${AMPSCOPE_EXE:-ampscope-not-found}")
# The recorded program gets the original library path back: the carried libraries are ampscope's.
CHILD=()
if [ -n "$AMPSCOPE_LIBDIR" ]; then
  read -r -a child_ld <<<"$(ld_env "$ORIG_LD_LIBRARY_PATH")"
  CHILD=(env "${child_ld[@]}")
fi

# libcupti: PyTorch's own copy is reused when loaded; for other programs, point at one.
if [ -z "${AMPSCOPE_CUPTI_PATH:-}" ]; then
  for c in /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 \
    /usr/local/cuda/lib/libcupti.so.13 \
    "$(timeout 30 "$PYTHON" -c 'import nvidia.cuda_cupti as m, os; print(os.path.join(list(m.__path__)[0], "lib", "libcupti.so.13"))' 2>/dev/null)"; do
    if [ -n "$c" ] && [ -f "$c" ]; then
      export AMPSCOPE_CUPTI_PATH=$c
      log "AMPSCOPE_CUPTI_PATH=$c"
      break
    fi
  done
fi

# record NAME LIMIT TRACE_DIR CMD...: `ampscope record -f -o TRACE_DIR -- CMD...` as a stage.
record() {
  local name=$1 limit=$2 dir=$3
  shift 3
  run_stage "$name" "$limit" "${AMPSCOPE[@]}" record -f -o "$dir" -- "${CHILD[@]}" "$@"
}

# The largest .amptrace in DIR (the training process; DataLoader workers write none or little).
main_trace() {
  local f best="" best_size=-1 size
  for f in "$1"/*.amptrace; do
    [ -f "$f" ] || continue
    size=$(stat -c %s "$f")
    if [ "$size" -gt "$best_size" ]; then
      best=$f
      best_size=$size
    fi
  done
  echo "$best"
}

analyze() {  # NAME TRACE REPORT
  local name=$1 trace=$2 report=$3
  if [ -z "$trace" ]; then
    log "skip $name: no trace"
    record_stage "$name" fail 1 0 "no trace to analyse"
    return 1
  fi
  run_stage "$name" 90 "${AMPSCOPE[@]}" analyze "$trace" -o "$report" --quiet
}

# ---------------------------------------------------------------------------------------------
# amp_trainer (built against the wheel's LibTorch on the GPU machine)
# ---------------------------------------------------------------------------------------------
TRAINER=${AMP_TRAINER:-}
if [ -z "$TRAINER" ] && [ "$mode" = cpu ]; then
  for t in "$ROOT"/build*/examples/amp_trainer; do
    [ -x "$t" ] && TRAINER=$t && break
  done
fi
if [ -z "$TRAINER" ] && [ "$mode" = gpu ]; then
  if command -v cmake >/dev/null && torch_prefix=$(timeout 60 "$PYTHON" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null); then
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cuda_args=()
    [ -x /usr/local/cuda/bin/nvcc ] && cuda_args=(-DCUDAToolkit_ROOT=/usr/local/cuda -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    # TORCH_CUDA_ARCH_LIST spares the Torch CMake config its GPU probe (H100/H200: 9.0).
    if run_stage build_trainer_configure 150 env TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}" \
      cmake -S "$ROOT/examples" -B "$WORK/build-trainer" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$torch_prefix" "${cuda_args[@]}" &&
      run_stage build_trainer 240 cmake --build "$WORK/build-trainer" -j "$(nproc)" --target amp_trainer; then
      TRAINER=$WORK/build-trainer/amp_trainer
    fi
  else
    log "cannot build amp_trainer: cmake or torch missing"
    record_stage build_trainer fail 1 0 "cmake or torch missing"
  fi
fi
[ -n "$TRAINER" ] && log "amp_trainer: $TRAINER"

# ---------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------
TRAIN=("$PYTHON" "$ROOT/scripts/gpu_train.py" --steps 120 --warmup 20 --workers 2 --sync-every 10)

train_plain() {  # PREC N
  run_stage "train_${1}_plain$2" 150 "${TRAIN[@]}" --precision "$1" --stats "$WORK/stats/${1}_plain$2.json"
}
train_record() {  # PREC N
  record "train_${1}_record$2" 180 "$WORK/rec/train_${1}$2" "${TRAIN[@]}" --precision "$1" \
    --stats "$WORK/stats/${1}_record$2.json"
}
train_profile() {  # PREC
  run_stage "train_${1}_profile" 240 "${TRAIN[@]}" --precision "$1" --profile "$WORK/prof/train_$1.json" \
    --stats "$WORK/stats/${1}_profile.json"
}
kernels_of() {  # NAME TRACE OUT
  if [ -z "$2" ] || [ ! -f "$2" ]; then
    record_stage "$1" fail 1 0 "no trace"
    return 1
  fi
  STAGE_STDOUT=$3 run_stage "$1" 120 "${AMPSCOPE[@]}" kernels --json "$2"
}

# Trainer cases: name and flags. The checks for each are in the evaluation below.
trainer_case() {  # NAME FLAGS...
  local name=$1
  shift
  if [ -z "$TRAINER" ]; then
    record_stage "trainer_$name" fail 1 0 "no amp_trainer"
    return 1
  fi
  local device_args=(--device cuda --steps 20)
  [ "$mode" = cpu ] && device_args=(--device cpu --threads 1 --steps 6 --dim 64 --vocab 256 --seq 16 --batch 4)
  # --init-scale needs steps after the skipped ones to see the skip rate after warm-up.
  [ "$name" = init_scale ] && [ "$mode" = gpu ] && device_args=(--device cuda --steps 40)
  record "trainer_$name" 120 "$WORK/rec/trainer_$name" "$TRAINER" "${device_args[@]}" "$@"
  cp "$WORK/logs/trainer_$name.log" "$WORK/trainer/$name.out" 2>/dev/null
  analyze "analyze_trainer_$name" "$(main_trace "$WORK/rec/trainer_$name")" "$WORK/reports/trainer_$name.json"
}

if [ "$mode" = gpu ]; then
  # (a) PyTorch: the core comparisons first, repetitions for the overhead figure later.
  train_plain bf16 1
  train_record bf16 1
  train_profile bf16
  train_record fp16 1
  train_profile fp16
  train_plain fp16 1
fi

# (b) the trainer's healthy run and the three planted problems the issue names.
trainer_case healthy
trainer_case sync_every --sync-every 1
trainer_case fp32_head --fp32-head
trainer_case init_scale --init-scale 1e9

if [ "$mode" = gpu ]; then
  for prec in bf16 fp16; do
    kernels_of "kernels_${prec}_ampscope" "$(main_trace "$WORK/rec/train_${prec}1")" "$WORK/kernels/${prec}_ampscope.json"
    kernels_of "kernels_${prec}_kineto" "$WORK/prof/train_$prec.json" "$WORK/kernels/${prec}_kineto.json"
    analyze "analyze_train_${prec}" "$(main_trace "$WORK/rec/train_${prec}1")" "$WORK/reports/train_$prec.json"
  done
  # Overhead: a second plain/record pair, alternating, when time allows.
  if [ "$(time_left)" -gt 150 ]; then
    train_plain bf16 2
    train_record bf16 2
  fi
  # Tensor Core activity (PM sampling); it may be unavailable (permissions, sandbox): then the
  # session's warnings say why.
  if [ "$(time_left)" -gt 90 ]; then
    run_stage train_bf16_tensor_metrics 150 "${AMPSCOPE[@]}" record -f --tensor-metrics -o "$WORK/rec/train_bf16_tm" -- \
      "${CHILD[@]}" "${TRAIN[@]}" --precision bf16 --stats "$WORK/stats/bf16_tensor_metrics.json"
    analyze analyze_train_bf16_tm "$(main_trace "$WORK/rec/train_bf16_tm")" "$WORK/reports/train_bf16_tm.json"
  fi
fi

# More planted problems, when time allows.
[ "$(time_left)" -gt 60 ] && trainer_case alloc_churn --alloc-churn
[ "$(time_left)" -gt 60 ] && trainer_case loader_delay --loader-delay-ms 30
[ "$(time_left)" -gt 60 ] && trainer_case no_autocast --no-autocast

# ---------------------------------------------------------------------------------------------
# Evaluation: results.json and summary.md
# ---------------------------------------------------------------------------------------------
log "evaluating"
timeout 75 "$PYTHON" - "$WORK" "$OUTDIR" "$mode" "$have_gpu" <<'PYEOF' >>"$MAINLOG" 2>&1 || log "evaluation failed (see the log)"
import csv, glob, json, os, re, statistics, sys

work, outdir, mode, have_gpu = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:  # missing or unreadable: the stage that made it failed
        return None

def pct_diff(a, b):
    return None if a is None or b in (None, 0) else 100.0 * (a - b) / b

stages = []
with open(os.path.join(work, "stages.tsv")) as f:
    for row in csv.DictReader(f, delimiter="\t"):
        stages.append(row)

results = {"schema": "ampscope.gpu_check/1", "mode": mode, "gpu": have_gpu, "stages": stages,
           "environment": open(os.path.join(work, "logs", "environment.log"), errors="replace").read()
           if os.path.exists(os.path.join(work, "logs", "environment.log")) else None}
goals = []  # (name, value, goal, met: True/False/None)

# ---- (a) PyTorch run: kernels, overhead, drops, Tensor Cores.
def kernel_totals(path):
    rows = load(path)
    if not isinstance(rows, list):
        return None
    return {"count": sum(r.get("count", 0) for r in rows), "total_us": sum(r.get("total_us", 0.0) for r in rows),
            "distinct": len(rows)}

def kineto_totals(path):
    # Independent of ampscope: Kineto's own kernel events.
    data = load(path)
    if not isinstance(data, dict):
        return None
    ev = [e for e in data.get("traceEvents", []) if e.get("cat") == "kernel" and e.get("ph") == "X"]
    return {"count": len(ev), "total_us": sum(float(e.get("dur", 0)) for e in ev)}

train = {}
for prec in ("bf16", "fp16"):
    amp = kernel_totals(os.path.join(work, "kernels", f"{prec}_ampscope.json"))
    kin = kernel_totals(os.path.join(work, "kernels", f"{prec}_kineto.json"))
    raw = kineto_totals(os.path.join(work, "prof", f"train_{prec}.json"))
    entry = {"ampscope_kernels": amp, "kineto_kernels_via_ampscope": kin, "kineto_kernels_raw": raw}
    if amp and kin:
        entry["count_diff_pct"] = pct_diff(amp["count"], kin["count"])
        entry["time_diff_pct"] = pct_diff(amp["total_us"], kin["total_us"])
        goals.append((f"{prec}: kernel count, ampscope vs torch.profiler", entry["count_diff_pct"], "|diff| <= 1%",
                      abs(entry["count_diff_pct"]) <= 1.0))
        goals.append((f"{prec}: total kernel time, ampscope vs torch.profiler", entry["time_diff_pct"], "|diff| <= 1%",
                      abs(entry["time_diff_pct"]) <= 1.0))
    if kin and raw:
        entry["kineto_reader_count_matches_raw"] = kin["count"] == raw["count"]
    plain = [s["mean_step_ms"] for s in (load(p) for p in sorted(glob.glob(os.path.join(work, "stats", f"{prec}_plain*.json")))) if s]
    rec = [s["mean_step_ms"] for s in (load(p) for p in sorted(glob.glob(os.path.join(work, "stats", f"{prec}_record*.json")))) if s]
    prof = load(os.path.join(work, "stats", f"{prec}_profile.json"))
    entry.update({"plain_step_ms": plain, "record_step_ms": rec,
                  "profile_step_ms": prof["mean_step_ms"] if prof else None})
    if plain and rec:
        entry["overhead_pct"] = pct_diff(statistics.median(rec), statistics.median(plain))
        goals.append((f"{prec}: collector overhead on step time", entry["overhead_pct"], "<= 2%",
                      entry["overhead_pct"] <= 2.0))
    drops = []
    for sess in glob.glob(os.path.join(work, "rec", f"train_{prec}*", "session.json")):
        s = load(sess)
        if s:
            drops.append({"dir": os.path.basename(os.path.dirname(sess)), "dropped": s.get("total_dropped_records"),
                          "exit_code": s.get("exit_code"), "files": len(s.get("files", [])),
                          "warnings": [w.get("code") for w in s.get("warnings", [])]})
    entry["sessions"] = drops
    if drops:
        total = sum(d["dropped"] or 0 for d in drops)
        goals.append((f"{prec}: dropped records", total, "0", total == 0))
    rep = load(os.path.join(work, "reports", f"train_{prec}.json"))
    if rep:
        entry["report"] = {"steps": {k: rep.get("steps", {}).get(k) for k in ("count", "source")},
                           "gpu_busy_pct": rep.get("gpu", {}).get("busy_pct"),
                           "tensor_cores": rep.get("tensor_cores"),
                           "findings": [(f.get("id"), f.get("severity")) for f in rep.get("findings", [])]}
    train[prec] = entry
tm = load(os.path.join(work, "reports", "train_bf16_tm.json"))
tm_session = load(os.path.join(work, "rec", "train_bf16_tm", "session.json"))
if tm or tm_session:
    train["tensor_metrics"] = {
        "tensor_cores": tm.get("tensor_cores") if tm else None,
        "warnings": [w.get("message") for w in (tm_session or {}).get("warnings", [])],
    }
    active = (tm or {}).get("tensor_cores", {}).get("active_pct")
    goals.append(("bf16: Tensor Core activity measured (PM sampling)", active, "a measured value",
                  active is not None))
results["pytorch_run"] = train

# ---- (b) amp_trainer: each planted problem must be reported.
def finding_ids(rep):
    return {f.get("id") for f in rep.get("findings", [])}

def loud(rep):
    return [f.get("id") for f in rep.get("findings", []) if f.get("severity") in ("warning", "critical")]

def checklist(rep, item):
    for c in rep.get("checklist", []):
        if c.get("id") == item:
            return c.get("status")
    return None

# Each check: (description, predicate on the report). Finding ids: docs/findings.md.
CHECKS = {
    "healthy": [("no warning/critical findings", lambda r: not loud(r)),
                ("checklist grad_scaler passes", lambda r: checklist(r, "grad_scaler") == "pass")],
    "sync_every": [("finding host_device_sync", lambda r: "host_device_sync" in finding_ids(r))],
    "fp32_head": [("finding fp32_gemm_outside_autocast or autocast_coverage warn/fail",
                   lambda r: "fp32_gemm_outside_autocast" in finding_ids(r)
                   or checklist(r, "autocast_coverage") in ("warn", "fail"))],
    "init_scale": [("finding grad_scaler_init_scale_too_high or grad_scaler_skipped_steps",
                    lambda r: bool({"grad_scaler_init_scale_too_high", "grad_scaler_skipped_steps"} & finding_ids(r))),
                   ("checklist grad_scaler warn/fail", lambda r: checklist(r, "grad_scaler") in ("warn", "fail"))],
    "alloc_churn": [("finding allocation_churn", lambda r: "allocation_churn" in finding_ids(r)),
                    ("checklist memory_fragmentation warn/fail",
                     lambda r: checklist(r, "memory_fragmentation") in ("warn", "fail"))],
    "loader_delay": [("finding dataloader_bottleneck or gpu_idle_at_step_start",
                      lambda r: bool({"dataloader_bottleneck", "gpu_idle_at_step_start"} & finding_ids(r))),
                     ("checklist data_pipeline warn/fail", lambda r: checklist(r, "data_pipeline") in ("warn", "fail"))],
    "no_autocast": [("finding amp_not_in_use", lambda r: "amp_not_in_use" in finding_ids(r)),
                    ("checklist tensor_core_utilization fail",
                     lambda r: checklist(r, "tensor_core_utilization") == "fail")],
}
trainer = {}
for case, checks in CHECKS.items():
    out_path = os.path.join(work, "trainer", f"{case}.out")
    rep = load(os.path.join(work, "reports", f"trainer_{case}.json"))
    if rep is None and not os.path.exists(out_path):
        continue  # not run
    text = open(out_path, errors="replace").read() if os.path.exists(out_path) else ""
    m = re.search(r"^summary: steps=(\d+) skipped=(\d+) final_scale=(\S+)", text, re.M)
    entry = {"trainer_summary": m.group(0) if m else None,
             "trainer_steps": int(m.group(1)) if m else None,
             "trainer_skipped": int(m.group(2)) if m else None,
             "checks": []}
    if rep:
        st = rep.get("steps", {})
        entry["report"] = {"steps": st.get("count"), "source": st.get("source"),
                           "gpu_busy_pct": rep.get("gpu", {}).get("busy_pct"),
                           "syncs_per_step": (rep.get("syncs") or {}).get("per_step"),
                           "fp32_gemm_share_pct": (rep.get("gate_metrics") or {}).get("fp32_gemm_share_pct"),
                           "checklist": {c.get("id"): c.get("status") for c in rep.get("checklist", [])},
                           "findings": [(f.get("id"), f.get("severity"), f.get("est_saving_pct"))
                                        for f in rep.get("findings", [])]}
        base = [("steps framed by NVTX 'step' ranges", lambda r, n=entry["trainer_steps"]:
                 r.get("steps", {}).get("source") == "nvtx" and r.get("steps", {}).get("count") == n)]
        for desc, pred in base + checks:
            try:
                ok = bool(pred(rep))
            except Exception as e:
                ok = False
                desc += f" (check raised {e!r})"
            entry["checks"].append({"check": desc, "ok": ok})
    else:
        entry["checks"].append({"check": "recorded and analysed", "ok": False})
    trainer[case] = entry
results["amp_trainer"] = trainer
results["goals"] = [{"goal": g, "value": v, "target": t, "met": m} for g, v, t, m in goals]

with open(os.path.join(outdir, "results.json"), "w") as f:
    json.dump(results, f, indent=2, default=str)

# ---- summary.md
def fmt(v, unit=""):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.2f}{unit}"
    return f"{v}{unit}"

lines = [f"# ampscope GPU check ({mode}{'' if have_gpu or mode == 'cpu' else ', NO GPU SEEN'})", ""]
if mode == "cpu":
    lines += ["CPU dry run: exercises this script with the CPU trainer. GPU-only expectations "
              "(findings from kernels) are expected to fail here.", ""]
lines += ["## Goals (PyTorch run)", "", "| goal | value | target | met |", "| --- | --- | --- | --- |"]
for g, v, t, m in goals:
    lines.append(f"| {g} | {fmt(v)} | {t} | {'yes' if m else 'NO'} |")
if not goals:
    lines.append("| (none measured) | | | |")
if mode == "cpu":
    lines += ["", "(a) the PyTorch run needs a GPU: not run in a CPU dry run."]
for prec, e in train.items():
    if not any(e.get(k) for k in ("ampscope_kernels", "kineto_kernels_via_ampscope", "plain_step_ms",
                                  "record_step_ms", "sessions", "tensor_cores", "warnings")):
        continue
    if prec == "tensor_metrics":
        lines += ["", f"Tensor metrics: {json.dumps(e.get('tensor_cores'))}; warnings: {e.get('warnings')}"]
        continue
    lines += ["", f"**{prec}**: ampscope kernels {e.get('ampscope_kernels')}, Kineto (ampscope reader) "
              f"{e.get('kineto_kernels_via_ampscope')}, Kineto raw {e.get('kineto_kernels_raw')}; "
              f"step ms plain {e.get('plain_step_ms')}, recorded {e.get('record_step_ms')}, "
              f"profiled {fmt(e.get('profile_step_ms'))}; sessions {e.get('sessions')}"]
lines += ["", "## amp_trainer planted problems", "", "| case | trainer | steps (source) | check | ok |",
          "| --- | --- | --- | --- | --- |"]
for case, e in trainer.items():
    rep = e.get("report") or {}
    for c in e["checks"]:
        lines.append(f"| {case} | skipped={fmt(e.get('trainer_skipped'))} | {fmt(rep.get('steps'))} "
                     f"({rep.get('source', 'n/a')}) | {c['check']} | {'yes' if c['ok'] else 'NO'} |")
for case, e in trainer.items():
    rep = e.get("report") or {}
    lines.append(f"- {case}: findings {rep.get('findings')}; checklist {rep.get('checklist')}")
lines += ["", "## Stages", "", "| stage | status | rc | s | note |", "| --- | --- | --- | --- | --- |"]
for s in stages:
    lines.append(f"| {s['stage']} | {s['status']} | {s['rc']} | {s['seconds']} | {s['note']} |")
with open(os.path.join(outdir, "summary.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
PYEOF

# ---------------------------------------------------------------------------------------------
# Packing: sample traces (< 2 MB each) and the details tarball. OUTDIR keeps at most 8 files.
# ---------------------------------------------------------------------------------------------
mkdir -p "$OUTDIR/sample_traces"
copied=0
for case in healthy sync_every fp32_head init_scale train_bf16; do
  [ "$copied" -ge 5 ] && break
  if [ "$case" = train_bf16 ]; then t=$(main_trace "$WORK/rec/train_bf161"); else t=$(main_trace "$WORK/rec/trainer_$case"); fi
  [ -n "$t" ] || continue
  size=$(stat -c %s "$t")
  if [ "$size" -lt 2097152 ]; then
    prefix=$([ "$case" = train_bf16 ] && echo gpu || echo trainer)
    cp "$t" "$OUTDIR/sample_traces/${prefix}_${case#train_}.amptrace" && copied=$((copied + 1))
  else
    log "sample trace $case is $size bytes (>= 2 MB): not copied"
  fi
done
rmdir "$OUTDIR/sample_traces" 2>/dev/null
log "done in ${SECONDS}s (scratch files stay in $WORK)"
# Everything small enough to be useful: logs, reports, kernel tables, stats, sessions.
(cd "$WORK" && find . -path ./build-trainer -prune -o -path ./build-ampscope -prune -o -type f \
  \( -name '*.log' -o -name '*.json' -o -name '*.tsv' -o -name '*.out' \) -size -8M -print |
  grep -v '^./prof/' | tar -czf "$OUTDIR/details.tar.gz" -T - 2>/dev/null) || log "details.tar.gz: tar failed"
exit 0
