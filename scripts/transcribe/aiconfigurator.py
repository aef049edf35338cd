"""Transcribe a chosen subset of ai-dynamo/aiconfigurator's per-operation profiles as cited
calibration points (issue 38): content/catalogue/calibration/aiconfigurator-<gpu>.yaml.

    make transcribe AIC=/path/to/aiconfigurator [AIC_COMMIT=<sha>]
    python scripts/transcribe/aiconfigurator.py /path/to/aiconfigurator [--commit <sha>]

aiconfigurator (Apache-2.0, NVIDIA) profiles single operations on real GPUs and stores the
times as parquet tables under aic-core/src/aiconfigurator_core/systems/data/<gpu>/. Nothing
of it is copied into this repository: this script reads a checkout (or an extracted copy;
give --commit when it has no .git) and writes only figures, each naming its file, the
column values of its row and the commit. Rerunning it on the same commit rewrites the same
bytes.

What is read, and why this subset (the grids hold over 100,000 rows per GPU):
- one backend and version for every GPU: TensorRT-LLM 1.3.0rc20's tables (gemm, attention,
  moe, its custom all-reduce) and NCCL 2.29.2's nccl-tests table, the newest versions that
  H100 SXM, H200 SXM and B200 all have;
- shapes that are real layers of catalogue models (and gpt-oss-20b, the smaller sibling of
  gpt-oss-120b), at token counts from one to 16,384, as listed in the tables below.

The training and held-out sets are decided here, by the rule in `split_rule` (written into
each file as `split:`), before anything is fitted; a point never changes set.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq  # from requirements-experiments.lock (make transcribe)
import yaml

from ridgepoint.atomic import write_atomic
from ridgepoint.layout import repository

REPO = "ai-dynamo/aiconfigurator"
DATA = "aic-core/src/aiconfigurator_core/systems/data"
TRTLLM, NCCL = "1.3.0rc20", "2.29.2"
TRAINING, HELD_OUT = "training", "held_out"


@dataclass(frozen=True)
class System:
    key: str  # catalogue GPU key
    folder: str  # aiconfigurator's system folder
    device: str  # the `device` column every row must carry
    name: str


SYSTEMS = (
    System("h100", "h100_sxm", "NVIDIA H100 80GB HBM3", "H100 SXM"),
    System("h200", "h200_sxm", "NVIDIA H200", "H200 SXM"),
    System("b200", "b200_sxm", "NVIDIA B200", "B200"),
)

# GEMMs: (n, k) of real layers, what they are; sets alternate in order of n x k.
GEMM_SHAPES = (
    (3072, 2048, "Llama 3.2 1B query, key and value projection"),
    (4096, 4096, "Llama 3.1 8B attention output projection"),
    (6144, 4096, "Llama 3.1 8B query, key and value projection"),
    (4096, 7168, "DeepSeek-V3 shared expert, gate and up projections"),
    (16384, 2048, "Llama 3.2 1B MLP gate and up projections"),
    (8192, 8192, "Llama 3.1 70B attention output projection"),
    (10240, 8192, "Llama 3.1 70B query, key and value projection"),
    (7168, 16384, "DeepSeek-V3 attention output projection"),
)
GEMM_TOKENS = (1, 16, 256, 2048, 16384)
GEMM_FORMATS = (("bfloat16", "bf16", "BF16 GEMM"),
                ("fp8", "fp8", "FP8 GEMM (per-tensor scales, activations quantized per call)"),
                ("nvfp4", "fp4", "NVFP4 GEMM (activations quantized per call)"))

# Attention: (heads, KV heads) per GPU of real deployments, head dimension 128; sets
# alternate in order of (heads, KV heads).
HEADS = (
    (4, 1, "Llama 3.1 8B at TP 8"),
    (8, 1, "Llama 3.1 70B at TP 8"),
    (16, 2, "Llama 3.1 70B at TP 4"),
    (32, 4, "Qwen3-30B-A3B"),
    (32, 8, "Llama 3.1 8B"),
    (64, 8, "Llama 3.1 70B"),
)
HEAD_DIM = 128
PREFILL_SHAPES = ((1, 1024), (8, 4096), (1, 16384))  # (batch, prompt tokens)
PREFILL_FORMATS = ("bfloat16", "fp8")  # the FMHA's format, and the KV cache's
DECODE_SHAPES = ((1, 4095), (16, 8191), (256, 511))  # (batch, cached tokens)
DECODE_KV = ("bfloat16", "fp8")


@dataclass(frozen=True)
class Moe:
    key: str
    name: str
    hidden: int
    ffn: int
    experts: int
    topk: int
    family: str

    @property
    def expert_params(self) -> int:
        return 3 * self.hidden * self.ffn * self.experts


MOES = {moe.key: moe for moe in (
    Moe("qwen3-30b-a3b", "Qwen3-30B-A3B", 2048, 768, 128, 8, "qwen3"),
    Moe("qwen3-235b-a22b", "Qwen3-235B-A22B", 4096, 1536, 128, 8, "qwen3"),
    Moe("gpt-oss-20b", "gpt-oss-20b", 2880, 2880, 32, 4, "gpt-oss"),
    Moe("gpt-oss-120b", "gpt-oss-120b", 2880, 2880, 128, 4, "gpt-oss"),
    Moe("deepseek-v3", "DeepSeek-V3", 7168, 2048, 256, 8, "deepseek"),
)}
# moe_dtype: (experts' format, activations' format, label)
MOE_FORMATS = {
    "bfloat16": ("bf16", "bf16", "BF16"),
    "fp8": ("fp8", "fp8", "FP8, per-tensor scales"),
    "fp8_block": ("fp8", "fp8", "FP8, 128-wide block scales"),
    "nvfp4": ("fp4", "fp4", "NVFP4"),
    "w4a16_mxfp4": ("fp4", "bf16", "MXFP4 weights, BF16 activations"),
    "w4a8_mxfp4_mxfp8": ("fp4", "fp8", "MXFP4 weights, MXFP8 activations"),
}
# (model, moe_dtype, kernel_source, tp, ep, distribution) per GPU generation.
HOPPER_MOE = (
    ("qwen3-30b-a3b", "bfloat16", "moe_torch_flow_cutlass", 1, 1, "balanced"),
    ("qwen3-30b-a3b", "fp8", "moe_torch_flow_cutlass", 2, 1, "balanced"),
    ("qwen3-30b-a3b", "bfloat16", "moe_torch_flow_cutlass", 1, 1, "power_law_1.2"),
    ("qwen3-235b-a22b", "bfloat16", "moe_torch_flow_cutlass", 1, 8, "balanced"),
    ("qwen3-235b-a22b", "fp8", "moe_torch_flow_cutlass", 4, 1, "balanced"),
    ("qwen3-235b-a22b", "bfloat16", "moe_torch_flow_cutlass", 1, 8, "power_law_1.2"),
    ("deepseek-v3", "fp8_block", "moe_torch_flow_cutlass", 1, 8, "balanced"),
    ("gpt-oss-20b", "w4a16_mxfp4", "moe_torch_flow", 1, 1, "balanced"),
    ("gpt-oss-120b", "w4a16_mxfp4", "moe_torch_flow", 1, 4, "balanced"),
)
BLACKWELL_MOE = (
    *HOPPER_MOE[:6],
    ("deepseek-v3", "fp8_block", "deepgemm", 1, 8, "balanced"),
    ("gpt-oss-20b", "w4a8_mxfp4_mxfp8", "moe_torch_flow", 1, 1, "balanced"),
    ("gpt-oss-120b", "w4a8_mxfp4_mxfp8", "moe_torch_flow", 1, 4, "balanced"),
    ("qwen3-30b-a3b", "nvfp4", "moe_torch_flow_cutlass", 1, 1, "balanced"),
    ("qwen3-235b-a22b", "nvfp4", "moe_torch_flow_cutlass", 1, 8, "balanced"),
    ("deepseek-v3", "nvfp4", "moe_torch_flow_cutlass", 1, 8, "balanced"),
)
MOE_TOKENS = (1, 32, 512, 8192)

# All-reduce: 4 KiB to 256 MiB, two octaves apart; sets alternate by size.
ALL_REDUCE_BYTES = tuple(4096 * 4**i for i in range(9))
ALL_REDUCE_GPUS = (2, 4, 8)


def split_rule(system: System) -> str:
    """The file's `split:` sentence; `assign` below is the same rule in code."""
    if system.key == "h200":
        return ("Every point of this file is held out: the H200 runs the same kernels as "
                "the H100 with other memory, so it tests whether the physics carries over "
                "to another GPU.")
    return ("Decided by scripts/transcribe/aiconfigurator.py before any fitting, by shape "
            "and never by result. GEMMs: the eight (n, k) pairs in order of n x k alternate "
            "training, held out, starting with training, for every format and token count. "
            "Prefill and decode attention: the six (heads, KV heads) configurations in order "
            "alternate the same way. MoE layers: within each model family in order of "
            "expert parameters, training then held out (Qwen3-30B-A3B training, "
            "Qwen3-235B-A22B held out; gpt-oss-20b training, gpt-oss-120b held out; "
            "DeepSeek-V3, alone in its family, training). All-reduce: the nine message "
            "sizes from 4 KiB to 256 MiB, two octaves apart, alternate training, held out, "
            "starting with training, for both implementations and every number of GPUs. "
            "The H200's points (another file) are all held out.")


def _alternate(rank: int) -> str:
    return TRAINING if rank % 2 == 0 else HELD_OUT


def assign(system: System, rank: int) -> str:
    """The set of a point whose shape has `rank` in the rule's order for its category."""
    return HELD_OUT if system.key == "h200" else _alternate(rank)


def moe_rank(model: Moe) -> int:
    """A model's place in its family, in order of expert parameters."""
    family = sorted((m for m in MOES.values() if m.family == model.family),
                    key=lambda m: m.expert_params)
    return family.index(model)


# -- reading ---------------------------------------------------------------------------


class Table:
    """One parquet table of a system, its rows looked up by column values."""

    def __init__(self, root: Path, system: System, relative: str, framework: str,
                 version: str) -> None:
        self.relative = relative
        path = root / DATA / system.folder / relative
        meta = yaml.safe_load((path.parent / "collection_meta.yaml").read_text())
        runtime = meta["runtime"]
        if (runtime["framework"], str(runtime["version"])) != (framework, version):
            raise SystemExit(f"{path.parent}: collected with {runtime}, not {framework} "
                             f"{version}")
        self.rows = pq.read_table(path).to_pylist()
        devices = {row["device"] for row in self.rows}
        if devices != {system.device}:
            raise SystemExit(f"{path}: devices {sorted(devices)}, not {system.device!r}")
        self._index: dict[tuple[str, ...], dict[tuple[Any, ...], list[dict[str, Any]]]] = {}

    def one(self, **values: Any) -> dict[str, Any]:
        """The single row with these column values (an error when none or several)."""
        columns = tuple(sorted(values))
        if columns not in self._index:
            index: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
            for row in self.rows:
                index.setdefault(tuple(row[column] for column in columns), []).append(row)
            self._index[columns] = index
        found = self._index[columns].get(tuple(values[column] for column in columns), [])
        if len(found) != 1:
            raise SystemExit(f"{self.relative}: {len(found)} rows with {values}")
        return found[0]

    def where(self, row: dict[str, Any], columns: tuple[str, ...]) -> str:
        described = ", ".join(f"{column}={row[column]}" for column in columns)
        return f"{self.relative}, the row {described}; column latency (ms)"


def ms(row: dict[str, Any]) -> float:
    """The row's latency (milliseconds in every table read here) to 4 significant figures."""
    value = float(row["latency"])
    return round(value, 3 - math.floor(math.log10(value)))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _kib(size: int) -> str:
    return f"{size // 2**20} MiB" if size >= 2**20 else f"{size // 1024} KiB"


# -- points ----------------------------------------------------------------------------


def gemms(root: Path, system: System) -> Iterator[dict[str, Any]]:
    table = Table(root, system, f"gemm/trtllm/{TRTLLM}/gemm_perf.parquet", "trtllm", TRTLLM)
    shapes = sorted(GEMM_SHAPES, key=lambda shape: shape[0] * shape[1])
    formats = {row["gemm_dtype"] for row in table.rows}
    for dtype, fmt, label in GEMM_FORMATS:
        if dtype not in formats:
            continue
        for rank, (n, k, layer) in enumerate(shapes):
            for m in GEMM_TOKENS:
                row = table.one(gemm_dtype=dtype, m=m, n=n, k=k)
                yield point(
                    f"aic-{system.key}-gemm-{fmt}-m{m}-n{n}-k{k}", "linear",
                    assign(system, rank), f"{label}, {m} x {k} by {k} x {n}: {layer}",
                    system, table.where(row, ("gemm_dtype", "m", "n", "k")), ms(row),
                    {"tokens": m, "k": k, "n": n, "weights": fmt, "activations": fmt})


def attention(root: Path, system: System) -> Iterator[dict[str, Any]]:
    folder = f"attention/trtllm/{TRTLLM}"
    context = Table(root, system, f"{folder}/context_attention_perf.parquet", "trtllm",
                    TRTLLM)
    generation = Table(root, system, f"{folder}/generation_attention_perf.parquet", "trtllm",
                       TRTLLM)
    common = {"head_dim": HEAD_DIM, "window_size": 0, "kernel_source": "torch_flow"}
    columns = ("batch_size", "isl", "step", "num_heads", "num_key_value_heads", "head_dim",
               "window_size", "attn_dtype", "kv_cache_dtype")
    for rank, (heads, kv_heads, deployment) in enumerate(sorted(HEADS)):
        shape = {"num_heads": heads, "num_key_value_heads": kv_heads, **common}
        for dtype in PREFILL_FORMATS:
            fmt = "fp8" if dtype == "fp8" else "bf16"
            for batch, tokens in PREFILL_SHAPES:
                row = context.one(batch_size=batch, isl=tokens, attn_dtype=dtype,
                                  kv_cache_dtype=dtype, **shape)
                yield point(
                    f"aic-{system.key}-prefill-{fmt}-h{heads}kv{kv_heads}-b{batch}-s{tokens}",
                    "attention", assign(system, rank),
                    f"Prefill attention ({fmt.upper()} kernel and KV cache), {heads} heads, "
                    f"{_count(kv_heads, 'KV head')}, {_count(batch, 'sequence')} of {tokens} "
                    f"causal tokens: {deployment}",
                    system, context.where(row, columns), ms(row),
                    {"heads": heads, "kv_heads": kv_heads, "head_dim": HEAD_DIM,
                     "tokens": tokens, "batch": batch, "activations": fmt, "kv": fmt})
        for dtype in DECODE_KV:
            fmt = "fp8" if dtype == "fp8" else "bf16"
            for batch, cached in DECODE_SHAPES:
                row = generation.one(batch_size=batch, step=cached, attn_dtype="bfloat16",
                                     kv_cache_dtype=dtype, **shape)
                yield point(
                    f"aic-{system.key}-decode-kv{fmt}-h{heads}kv{kv_heads}-b{batch}-c{cached}",
                    "attention_decode", assign(system, rank),
                    f"Decode attention ({fmt.upper()} KV cache), {heads} heads, "
                    f"{_count(kv_heads, 'KV head')}, {_count(batch, 'sequence')} of {cached} "
                    f"cached tokens: {deployment}",
                    system, generation.where(row, columns), ms(row),
                    {"heads": heads, "kv_heads": kv_heads, "head_dim": HEAD_DIM,
                     "batch": batch, "context": cached, "kv": fmt})


def moes(root: Path, system: System) -> Iterator[dict[str, Any]]:
    table = Table(root, system, f"moe/trtllm/{TRTLLM}/moe_perf.parquet", "trtllm", TRTLLM)
    configs = BLACKWELL_MOE if system.key == "b200" else HOPPER_MOE
    columns = ("moe_dtype", "kernel_source", "num_tokens", "hidden_size", "inter_size", "topk",
               "num_experts", "moe_tp_size", "moe_ep_size", "distribution")
    for key, dtype, source, tp, ep, distribution in configs:
        model = MOES[key]
        experts, activations, label = MOE_FORMATS[dtype]
        for tokens in MOE_TOKENS:
            row = table.one(moe_dtype=dtype, kernel_source=source, num_tokens=tokens,
                            hidden_size=model.hidden, inter_size=model.ffn, topk=model.topk,
                            num_experts=model.experts, moe_tp_size=tp, moe_ep_size=ep,
                            distribution=distribution)
            skew = "balanced" if distribution == "balanced" else distribution.replace("_", "-")
            yield point(
                f"aic-{system.key}-moe-{key}-{dtype.replace('_', '-')}-tp{tp}ep{ep}-{skew}"
                f"-t{tokens}", "moe", assign(system, moe_rank(model)),
                f"{model.name} MoE layer ({label}), one GPU's share at expert TP {tp} x EP "
                f"{ep}, {_count(tokens, 'token')}, routing {distribution.replace('_', ' ')}",
                system, table.where(row, columns), ms(row),
                {"tokens": tokens, "hidden": model.hidden, "expert_ffn": model.ffn,
                 "experts": model.experts, "experts_per_token": model.topk, "ep": ep, "tp": tp,
                 "experts_format": experts, "activations": activations,
                 "distribution": distribution})


def all_reduces(root: Path, system: System) -> Iterator[dict[str, Any]]:
    nccl = Table(root, system, f"comm/nccl/{NCCL}/nccl_perf.parquet", "nccl", NCCL)
    custom = Table(root, system, f"comm/trtllm/{TRTLLM}/custom_allreduce_perf.parquet",
                   "trtllm", TRTLLM)
    for implementation in ("nccl", "custom"):
        for rank, size in enumerate(ALL_REDUCE_BYTES):
            for gpus in ALL_REDUCE_GPUS:
                # Both tables count message_size in 2-byte elements (half, bfloat16).
                if implementation == "nccl":
                    row = nccl.one(op_name="all_reduce", nccl_dtype="half", num_gpus=gpus,
                                   message_size=size // 2)
                    where = nccl.where(row, ("op_name", "nccl_dtype", "num_gpus",
                                             "message_size"))
                    what = "NCCL all-reduce (nccl-tests all_reduce_perf, FP16)"
                else:
                    row = custom.one(op_name="all_reduce", allreduce_dtype="bfloat16",
                                     num_gpus=gpus, message_size=size // 2)
                    where = custom.where(row, ("op_name", "allreduce_dtype", "num_gpus",
                                               "message_size", "implementation"))
                    what = ("TensorRT-LLM all-reduce (BF16, strategy AUTO: its own one-shot "
                            "or two-shot kernels, NCCL for large messages)")
                yield point(
                    f"aic-{system.key}-allreduce-{implementation}-g{gpus}-"
                    f"{_kib(size).replace(' ', '').lower()}",
                    "all_reduce", assign(system, rank),
                    f"{what} over {gpus} GPUs, {_kib(size)}", system,
                    f"{where}; message_size counts 2-byte elements, so bytes = 2 x "
                    f"{size // 2}", ms(row),
                    {"gpus": gpus, "bytes": size, "implementation": implementation})


def point(key: str, kind: str, chosen: str, what: str, system: System, where: str,
          measured_ms: float, case: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "kind": kind, "set": chosen, "what": what, "gpu": system.key,
            "where": where, "measured_ms": measured_ms, "case": case}


# -- writing ---------------------------------------------------------------------------


def document(system: System, commit: str, points: list[dict[str, Any]]) -> str:
    """The YAML file, written by hand so that every point is one short block."""
    url = f"https://github.com/{REPO}/tree/{commit}/{DATA}/{system.folder}"
    title = (f"NVIDIA {REPO}, per-operation performance profiles, systems/data/"
             f"{system.folder}: TensorRT-LLM {TRTLLM} tables (gemm, attention, moe, "
             f"custom all-reduce) and NCCL {NCCL} (nccl_perf), commit {commit[:12]}")
    measured_by = (f"NVIDIA's aiconfigurator collectors on an {system.name} (rows' device "
                   f"{system.device!r}): each operation alone, timed over CUDA-graph replays "
                   f"with CUDA events (nccl-tests for NCCL); times are the tables' latency "
                   f"column in milliseconds, to four significant figures")
    lines = [
        "# yaml-language-server: $schema=../../../scripts/ridgepoint/schemas/"
        "calibration.schema.json",
        f"# Written by scripts/transcribe/aiconfigurator.py from {REPO} at {commit}:",
        "# rerun `make transcribe AIC=<checkout>` rather than editing by hand.",
        "publication:",
        f"  title: {json.dumps(title)}",
        f"  url: {url}",
        f"measured_by: {json.dumps(measured_by)}",
        f"split: {json.dumps(split_rule(system))}",
        "points:",
    ]
    for entry in points:
        case = ", ".join(f"{name}: {value}" for name, value in entry["case"].items())
        lines += [f"- key: {entry['key']}", f"  kind: {entry['kind']}",
                  f"  set: {entry['set']}", f"  what: {json.dumps(entry['what'])}",
                  f"  gpu: {entry['gpu']}", f"  where: {json.dumps(entry['where'])}",
                  f"  measured_ms: {entry['measured_ms']!r}", f"  case: {{{case}}}"]
    return "\n".join(lines) + "\n"


def check(system: System, points: list[dict[str, Any]]) -> None:
    """Keys are unique, and (but on the all-held-out H200) every (category, format) has
    points in both sets."""
    keys = [entry["key"] for entry in points]
    if len(keys) != len(set(keys)):
        raise SystemExit(f"{system.key}: two points share a key")
    if system.key == "h200":
        return
    groups: dict[tuple[str, str], set[str]] = {}
    for entry in points:
        case = entry["case"]
        fmt = (case.get("weights") or case.get("experts_format") or case.get("implementation")
               or case.get("kv"))
        groups.setdefault((entry["kind"], fmt), set()).add(entry["set"])
    lacking = [group for group, sets in groups.items() if sets != {TRAINING, HELD_OUT}]
    if lacking:
        raise SystemExit(f"{system.key}: groups without both sets: {lacking}")


def commit_of(root: Path, given: str | None) -> str:
    """The commit the figures cite: the one given, or the checkout's own HEAD (never that
    of a repository the folder merely sits inside)."""
    if given:
        return given
    try:
        top, commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"], check=True,
            capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError, ValueError) as error:
        raise SystemExit(f"{root} is not a git checkout: give its commit with --commit"
                         ) from error
    if Path(top).resolve() != root:
        raise SystemExit(f"{root} is inside the checkout {top}, not one of aiconfigurator: "
                         f"give its commit with --commit")
    return commit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Transcribe aiconfigurator's per-operation profiles as calibration points.")
    parser.add_argument("checkout", type=Path, help="a checkout of ai-dynamo/aiconfigurator")
    parser.add_argument("--commit", help="its commit, when the folder has no .git")
    args = parser.parse_args(argv)
    root = args.checkout.resolve()
    commit = commit_of(root, args.commit)
    if len(commit) != 40:
        raise SystemExit(f"{commit!r} is not a full 40-character commit hash")
    out = repository().content / "catalogue" / "calibration"
    for system in SYSTEMS:
        points = [*gemms(root, system), *attention(root, system), *moes(root, system),
                  *all_reduces(root, system)]
        check(system, points)
        path = out / f"aiconfigurator-{system.key}.yaml"
        write_atomic(path, document(system, commit, points))
        print(f"{path.relative_to(out.parents[2])}: {len(points)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
