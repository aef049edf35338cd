"""Transcribe published serving runs (first-token time, time per output token or inter-token
latency, output rate, against a closed loop's concurrency) into calibration sets.

Two sources, local copies of text files in public repositories:

- NVIDIA NIM's LLM benchmarking page, Llama 3.1 8B on one H100 and Llama 3.3 70B on two
  (NIM 1.8.0, profiles "fp8 TP1" and "fp8 TP2"), as zivbeker42/llm-guesstimator transcribes
  its tables (tested_benchmarks/nim_*.csv, columns TTFT_ms, ITL_ms, Throughput_tokens_per_s);
  --nim NAME=PATH, NAME one of NIM_RUNS.
- dstack's DeepSeek-R1 benchmark on 8 H200 and 8 MI300X (dstackai/benchmarks,
  Deepseek-R1/raw_data/online_results.csv: SGLang's bench_serving, 500 prompts, random
  lengths with range ratio 1, so every prompt and reply is as long as asked); --dstack PATH.

Each run gives one point per figure (ttft, itl or tpot, serving_throughput). The split, fixed
before any prediction was looked at: runs are grouped into series (one source file, model,
GPU, engine and prompt and reply lengths) and ordered by concurrency; within a series they
take turns, training first. Every MI300X run is held out: its kernel profile borrows Hopper's
constants, so its runs measure that borrowing and never train an engine.

Left out, each for a reason it names: dstack's TensorRT-LLM rows (their own concurrency
column reads about 1,170 under caps of 64 and 128, so the cap did not hold), its SGLang
H200 rows (attention data-parallel beside tensor-parallel experts, a layout the sims do not
have) and its generated-shared-prefix rows (a shared prefix, which the served runs here do
not model).

    python scripts/transcribe/serving_runs.py --nim 8b=nim_llama3.1_8b_v1.8.0_1xH100_80GB.csv \\
        --nim 70b=nim_llama33_70b_v1.8.0_2xH100_fp8TP2.csv --out-nim nim.yaml \\
        --dstack online_results.csv --out-dstack dstack.yaml
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from calibration_yaml import dump

GUESSTIMATOR = "https://github.com/zivbeker42/llm-guesstimator"
GUESSTIMATOR_COMMITS = {"8b": "9fa7c3b7aa790c7530c1eec64f37bf2a03d7a865",
                        "70b": "cf11e664a85abf1f5cb811e7c7798581aadb1290"}
DSTACK = "https://github.com/dstackai/benchmarks"
DSTACK_COMMIT = "7f37e6697725e58dd09b9ef190b62ce19f01d45e"
# NIM's runs: (model key, the model as NIM names it, GPUs, the CSV's file name).
NIM_RUNS = {"8b": ("llama-3.1-8b", "Llama-3.1-8B-Instruct", 1,
                   "nim_llama3.1_8b_v1.8.0_1xH100_80GB.csv"),
            "70b": ("llama-3.1-70b", "Llama-3.3-70B-Instruct (the shape of Llama 3.1 70B)", 2,
                    "nim_llama33_70b_v1.8.0_2xH100_fp8TP2.csv")}
SPLIT = ("Runs are grouped into series (one source file, model, GPU, engine, prompt and reply "
         "lengths) and ordered by concurrency; within a series they take turns, training "
         "first. Every MI300X run is held out (its kernel profile borrows Hopper's constants). "
         "A run's figures share its set. Decided before any prediction was looked at.")


def alternate(runs: list[dict[str, Any]], held: bool = False) -> Iterable[tuple[dict, str]]:
    """Each run of one series (sorted by concurrency) with its set."""
    for index, run in enumerate(sorted(runs, key=lambda run: run["concurrency"])):
        yield run, "held_out" if held or index % 2 else "training"


def nim(paths: dict[str, Path]) -> dict[str, Any]:
    points = []
    for name, path in paths.items():
        model, nim_name, gpus, file = NIM_RUNS[name]
        series: dict[tuple[int, int], list[dict[str, Any]]] = {}
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                run = {"isl": int(row["input_tokens"]), "osl": int(row["output_tokens"]),
                       "concurrency": int(row["concurrency"]), "ttft": float(row["TTFT_ms"]),
                       "itl": float(row["ITL_ms"]),
                       "rate": float(row["Throughput_tokens_per_s"])}
                series.setdefault((run["isl"], run["osl"]), []).append(run)
        for runs in series.values():
            for run, chosen in alternate(runs):
                points += _nim_points(name, model, nim_name, gpus, file, run, chosen)
    return {
        "publication": {
            "title": "NVIDIA NIM for LLMs benchmarking, Performance (NIM 1.8.0: Llama 3.1 8B "
                     "Instruct on 1 x H100 80G, fp8 TP1; Llama 3.3 70B Instruct on 2 x H100 "
                     "80G, fp8 TP2), as transcribed in zivbeker42/llm-guesstimator, "
                     "tested_benchmarks/",
            "url": GUESSTIMATOR},
        "measured_by": "NVIDIA (NIM 1.8.0, TensorRT-LLM engines; a closed-loop concurrency "
                       "sweep at fixed prompt and reply lengths, measured by the benchmarking "
                       "client), transcribed by a third party whose README names NVIDIA's "
                       "page as the source",
        "split": SPLIT,
        "assumptions": "The KV cache is FP8, as in the TensorRT-LLM runs of the throughput "
                       "sets (the fp8 profiles' checkpoints quantize it; the page does not "
                       "say). The figures are taken as means (the page does not name the "
                       "statistic). Throughput is output tokens per second over the whole "
                       "run and both GPUs: at concurrency 1 it is about 1 / ITL. The "
                       "latencies are of each run's steady state, its users' first requests "
                       "(sent all at once) left out (warmup): the page does not say how its "
                       "client measured, but the runs do. Llama 70B's mean first token at "
                       "200 users and 1,000-token prompts and replies is 558 ms, where the "
                       "model's first round alone, 200 prompts arriving together, averages "
                       "several seconds. The NIM engines' token budgets per step are not "
                       "published: the calibration fit finds the one each deployment's "
                       "training runs behave as if they had (the TensorRT-LLM profile's "
                       "deployments). Their other settings are taken as TensorRT-LLM's.",
        "fitted": ["token_budget"],
        "points": points}


def _nim_points(name: str, model: str, nim_name: str, gpus: int, file: str,
                run: dict[str, Any], chosen: str) -> list[dict[str, Any]]:
    isl, osl, users = run["isl"], run["osl"], run["concurrency"]
    key = f"h100-nim-{name}-tp{gpus}-{isl}-{osl}-c{users}"
    what = (f"{nim_name} on {gpus} H100 (NIM 1.8.0, fp8 TP{gpus}), {isl:,}-token prompts and "
            f"{osl:,}-token replies, {users} concurrent users")
    where = (f"{file} at commit {GUESSTIMATOR_COMMITS[name][:8]}, row input_tokens={isl}, "
             f"output_tokens={osl}, concurrency={users}")
    case = {"model": model, "tp": gpus, "isl": isl, "osl": osl, "weights": "fp8",
            "activations": "fp8", "kv": "fp8", "engine": "trtllm", "concurrency": users,
            "warmup": users}
    return [
        {"key": f"{key}-ttft", "kind": "ttft", "what": f"Mean time to first token: {what}",
         "gpu": "h100", "where": f"{where}: TTFT_ms {run['ttft']:g}",
         "measured_ms": run["ttft"], "set": chosen, "case": {**case, "statistic": "mean"}},
        {"key": f"{key}-itl", "kind": "itl", "what": f"Mean inter-token latency: {what}",
         "gpu": "h100", "where": f"{where}: ITL_ms {run['itl']:g}",
         "measured_ms": run["itl"], "set": chosen, "case": {**case, "statistic": "mean"}},
        {"key": f"{key}-throughput", "kind": "serving_throughput",
         "what": f"Output tokens per second per GPU: {what}", "gpu": "h100",
         "where": f"{where}: Throughput_tokens_per_s {run['rate']:g}, over {gpus} GPUs",
         "measured_tokens_per_s_per_gpu": round(run["rate"] / gpus, 3), "set": chosen,
         "case": case},
    ]


def dstack(path: Path) -> dict[str, Any]:
    series: dict[tuple[str, str, int, int], list[dict[str, Any]]] = {}
    with path.open(newline="", encoding="utf-8-sig") as handle:  # the file starts with a BOM
        for row in csv.DictReader(handle):
            gpu, backend = row["GPU"], row["backend"]
            if row["dataset_name"] != "random" or backend == "trt-llm" or (
                    gpu == "h200" and backend == "sglang"):
                continue  # left out: the module's docstring says why
            run = {"gpu": gpu, "engine": backend, "isl": int(row["random_input_len"]),
                   "osl": int(row["random_output_len"]),
                   "concurrency": int(row["max_concurrency"]),
                   "requests": int(row["completed"]), "ttft": float(row["mean_ttft_ms"]),
                   "tpot": float(row["mean_tpot_ms"]), "itl": float(row["mean_itl_ms"]),
                   "rate": float(row["output_throughput"])}
            series.setdefault((gpu, backend, run["isl"], run["osl"]), []).append(run)
    points = []
    for (gpu, _, _, _), runs in series.items():
        for run, chosen in alternate(runs, held=gpu == "mi300x"):
            points += _dstack_points(run, chosen)
    return {
        "publication": {
            "title": "dstack, Evaluate DeepSeek-R1 inference performance with SGLang, vLLM and "
                     "TensorRT-LLM on 8xH200 and 8xMI300X: "
                     f"Deepseek-R1/raw_data/online_results.csv at commit {DSTACK_COMMIT[:8]}",
            "url": f"{DSTACK}/blob/{DSTACK_COMMIT}/Deepseek-R1/raw_data/online_results.csv"},
        "measured_by": "dstack (8 H200 SXM5 and 8 MI300X; vLLM 0.7.4.dev on H200 and 0.7.3.dev "
                       "on MI300X, tensor parallel over 8; SGLang 0.4.2.post4 on MI300X, "
                       "tensor parallel over 8), SGLang's bench_serving with 500 prompts of "
                       "fixed lengths, closed loop (--max-concurrency)",
        "split": SPLIT,
        "assumptions": "The weights are DeepSeek-R1's own FP8 checkpoint (the runs load it "
                       "unchanged) and the KV cache is in BF16, the engines' default for it; "
                       "DeepSeek-R1 has DeepSeek-V3's shape. Left out: the TensorRT-LLM rows "
                       "(their measured concurrency is about 1,170 under caps of 64 and 128), "
                       "SGLang on H200 (attention data-parallel beside tensor-parallel "
                       "experts, a layout the sims do not have) and the shared-prefix rows.",
        "points": points}


def _dstack_points(run: dict[str, Any], chosen: str) -> list[dict[str, Any]]:
    gpu, engine, isl, osl, users = (run["gpu"], run["engine"], run["isl"], run["osl"],
                                    run["concurrency"])
    key = f"{gpu}-dstack-deepseek-r1-{engine}-tp8-{isl}-{osl}-c{users}"
    names = {"vllm": "vLLM", "sglang": "SGLang"}
    what = (f"DeepSeek-R1 (priced as DeepSeek-V3, the same shape) on 8 {gpu.upper()}, "
            f"{names[engine]} tensor parallel over 8, {isl:,}-token prompts and {osl:,}-token "
            f"replies, {users} concurrent users, {run['requests']} requests")
    where = (f"online_results.csv row GPU={gpu}, backend={engine}, dataset_name=random, "
             f"max_concurrency={users}, random_input_len={isl}, random_output_len={osl}")
    case = {"model": "deepseek-v3", "tp": 8, "isl": isl, "osl": osl, "kv": "bf16",
            "engine": engine, "concurrency": users, "requests": run["requests"]}
    figures = (("ttft", "mean_ttft_ms", "Mean time to first token"),
               ("tpot", "mean_tpot_ms", "Mean time per output token"),
               ("itl", "mean_itl_ms", "Mean inter-token latency"))
    points = [{"key": f"{key}-{kind}", "kind": kind, "what": f"{label}: {what}", "gpu": gpu,
               "where": f"{where}: {column} {run[kind]:.4f}",
               "measured_ms": round(run[kind], 4), "set": chosen,
               "case": {**case, "statistic": "mean"}}
              for kind, column, label in figures]
    points.append({"key": f"{key}-throughput", "kind": "serving_throughput",
                   "what": f"Output tokens per second per GPU: {what}", "gpu": gpu,
                   "where": f"{where}: output_throughput {run['rate']:.3f}, over 8 GPUs",
                   "measured_tokens_per_s_per_gpu": round(run["rate"] / 8, 3), "set": chosen,
                   "case": case})
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nim", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--out-nim", type=Path)
    parser.add_argument("--dstack", type=Path)
    parser.add_argument("--out-dstack", type=Path)
    args = parser.parse_args()
    me = "scripts/transcribe/serving_runs.py"
    if args.nim and args.out_nim:
        paths = {name: Path(path) for name, path in (item.split("=", 1) for item in args.nim)}
        args.out_nim.write_text(dump(nim(paths), me), encoding="utf-8")
    if args.dstack and args.out_dstack:
        args.out_dstack.write_text(dump(dstack(args.dstack), me), encoding="utf-8")


if __name__ == "__main__":
    main()
