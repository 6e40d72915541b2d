#!/usr/bin/env python3
"""A small PyTorch AMP training run that scripts/gpu_check.sh records.

It trains a small transformer language model on synthetic tokens with automatic mixed precision:
  --precision bf16   autocast to bfloat16, no GradScaler (the usual bf16 recipe);
  --precision fp16   autocast to float16 with torch.amp.GradScaler (the usual fp16 recipe).
It uses a DataLoader with worker processes and pinned memory, logs loss.item() every
--sync-every steps (a host-device sync), and marks every step with an NVTX range named "step"
(for `ampscope record`). With --profile it runs the same work under torch.profiler and exports
the Kineto trace, so the two traces can be compared kernel by kernel.

The whole CUDA part (model creation, warm-up, steps) runs inside the profiler when profiling,
so a profiled run and an `ampscope record` run cover the same kernels.

--stats writes step timing (measured between two cuda.synchronize() calls around the timed
steps, so timing adds no per-step sync) and the loss, as JSON.
"""
import argparse
import contextlib
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class SyntheticTokens(Dataset):
    """Deterministic random token sequences; the target is a fixed affine map of each token."""

    def __init__(self, samples, seq, vocab, seed):
        self.samples, self.seq, self.vocab, self.seed = samples, seq, vocab, seed

    def __len__(self):
        return self.samples

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        tokens = torch.randint(0, self.vocab, (self.seq,), generator=g)
        return tokens, (tokens * 7 + 3) % self.vocab


class TinyLm(nn.Module):
    def __init__(self, vocab, dim, seq, layers, heads):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(seq, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=4 * dim, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        # True above the diagonal = may not attend (causal).
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(diagonal=1), persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        x = self.blocks(x, mask=self.mask[: tokens.shape[1], : tokens.shape[1]], is_causal=True)
        return self.head(self.norm(x))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--precision", choices=["bf16", "fp16"], default="bf16")
    p.add_argument("--steps", type=int, default=40, help="training steps in total (default 40)")
    p.add_argument("--warmup", type=int, default=10, help="steps before timing starts (default 10)")
    p.add_argument("--workers", type=int, default=2, help="DataLoader worker processes (default 2)")
    p.add_argument("--sync-every", type=int, default=10, help="loss.item() every N steps; 0 = never (default 10)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--dim", type=int, default=1024)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", metavar="OUT.json", help="run under torch.profiler and export the Kineto trace here")
    p.add_argument("--stats", metavar="OUT.json", help="write timing and loss statistics here")
    args = p.parse_args(argv)
    if args.warmup >= args.steps:
        p.error("--warmup must be smaller than --steps")
    return args


def main(argv):
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("gpu_train.py: CUDA is not available", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    device = torch.device("cuda")
    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float16

    data = SyntheticTokens(args.steps * args.batch, args.seq, args.vocab, args.seed)
    loader = DataLoader(data, batch_size=args.batch, shuffle=False, num_workers=args.workers,
                        pin_memory=True, drop_last=True, persistent_workers=args.workers > 0)

    if args.profile:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=activities)
    else:
        profiler = contextlib.nullcontext()

    losses = {}
    timed_seconds = None
    with profiler as prof:
        model = TinyLm(args.vocab, args.dim, args.seq, args.layers, args.heads).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)  # foreach on CUDA (PyTorch 2.x default)
        scaler = torch.amp.GradScaler("cuda", enabled=args.precision == "fp16")
        t_start = None
        for step, (tokens, targets) in enumerate(loader):
            if step == args.warmup:
                torch.cuda.synchronize()
                t_start = time.perf_counter()
            torch.cuda.nvtx.range_push("step")
            tokens = tokens.to(device, non_blocking=True)
            targets = targets.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=dtype):
                logits = model(tokens)
                loss = F.cross_entropy(logits.view(-1, args.vocab), targets.view(-1))
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            if args.sync_every > 0 and (step + 1) % args.sync_every == 0:
                losses[step + 1] = loss.item()  # the logging sync
            torch.cuda.nvtx.range_pop()
            if args.profile:
                prof.step()
        torch.cuda.synchronize()
        timed_seconds = time.perf_counter() - t_start
    timed_steps = args.steps - args.warmup
    # Skipped steps without a per-step sync: with growth_interval 2000 the scale only backs off
    # in a run this short, so final = init * 0.5**skipped.
    final_scale = scaler.get_scale() if scaler.is_enabled() else None
    skipped = max(0, round(math.log2(65536.0 / final_scale))) if final_scale else 0

    if args.profile:
        t0 = time.perf_counter()
        prof.export_chrome_trace(args.profile)
        print(f"gpu_train.py: Kineto trace {args.profile} ({os.path.getsize(args.profile)} bytes, "
              f"export {time.perf_counter() - t0:.1f} s)")

    stats = {
        "precision": args.precision,
        "grad_scaler": args.precision == "fp16",
        "steps": args.steps,
        "warmup_steps": args.warmup,
        "timed_steps": timed_steps,
        "timed_seconds": timed_seconds,
        "mean_step_ms": 1000.0 * timed_seconds / timed_steps,
        "workers": args.workers,
        "sync_every": args.sync_every,
        "losses": losses,
        "skipped_steps": skipped,
        "final_scale": final_scale,
        "profiled": bool(args.profile),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "model": {"vocab": args.vocab, "dim": args.dim, "seq": args.seq, "layers": args.layers,
                  "heads": args.heads, "batch": args.batch},
    }
    last = losses[max(losses)] if losses else float("nan")
    print(f"gpu_train.py: {args.precision} {args.steps} steps, mean step {stats['mean_step_ms']:.3f} ms "
          f"(over {timed_steps}), last logged loss {last:.4f}, skipped {skipped}")
    if args.stats:
        with open(args.stats, "w") as f:
            json.dump(stats, f, indent=2)
    return 0 if (not losses or math.isfinite(last)) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
