"""aiconfigurator's tables read into calibration points: each chosen row
(aiconfigurator_choice) found, checked to be the only one, and written as a point naming its
file and column values. scripts/transcribe/aiconfigurator.py writes them out.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq  # from requirements-experiments.lock (make transcribe)
import yaml
from aiconfigurator_choice import (
    ALL_REDUCE_BYTES,
    ALL_REDUCE_GPUS,
    BLACKWELL_MOE,
    DATA,
    DECODE_KV,
    DECODE_SHAPES,
    GEMM_FORMATS,
    GEMM_SHAPES,
    GEMM_TOKENS,
    HEAD_DIM,
    HEADS,
    HOPPER_MOE,
    MOE_FORMATS,
    MOE_TOKENS,
    MOES,
    NCCL,
    PREFILL_FORMATS,
    PREFILL_SHAPES,
    TRAINING_EP_MOE,
    TRTLLM,
    System,
    assign,
    moe_rank,
)

# -- reading ---------------------------------------------------------------------------


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
    configs = ((*BLACKWELL_MOE, *TRAINING_EP_MOE["b200"]) if system.key == "b200" else
               (*HOPPER_MOE, *TRAINING_EP_MOE.get(system.key, ())))
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
