"""Transcribe TensorRT-LLM's published offline-throughput tables into a calibration set.

Reads one version of NVIDIA/TensorRT-LLM's perf-overview.md (docs/source/performance/ in
older versions, docs/source/developer-guide/ in newer ones), a local copy given by path, and
prints the calibration set (content/catalogue/calibration/<slug>.yaml) on stdout.

Each table sits under a heading naming a model; its rows are ISL/OSL pairs and its columns
GPUs with their parallelism and precision ("H100<br/>TP2 (FP8)", "B200<br/>DEP4 (FP4)").
Kept: tables of the models in MODELS (the catalogue holds them or a model of the same shape),
columns of the GPUs in GPUS (GB200 as one GPU of the catalogue's GB200 NVL72), cells with a
figure. Left out: the RTX 6000 tables (pipeline-parallel runs, which the sims do not model),
models not in the catalogue, and GPT-OSS on Hopper, whose "(FP8)" label the page does not
explain (the checkpoints are MXFP4).

--unit says what the page reports: "per-gpu" (Output Throughput per GPU) is kept as it is;
"total" (Total Output Throughput of the run) is divided by the run's GPUs (TP x PP, PP being
1 in every kept column). The script checks that the page says the unit it is given.

Each run's size: the page's dataset table gives the requests generated for each ISL/OSL pair
("Number of Requests" or "$num_requests"); a point of a listed pair carries it as
`requests`, since a run of a few thousand requests spends a good part of its time filling
its batch and draining it (sims.serving.offline). A pair the table does not list has none.

Training and held-out sets: the ISL/OSL pairs, in the order the page first lists them, take
turns (training, held-out, training, ...); a pair within 3% of the one before it in both
lengths (1024/1024 after 1000/1000) shares its turn, so near-duplicates sit in one set.
Keys carry the commit's first eight digits, so two versions of the page can both be kept.

    python scripts/transcribe/trtllm_perf_overview.py perf-overview.md --unit per-gpu \\
        --commit 585c756579dc4d01f21fc13c2f604cdb461ac4f0 \\
        --path docs/source/developer-guide/perf-overview.md > content/catalogue/calibration/...
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from calibration_yaml import dump

REPO = "NVIDIA/TensorRT-LLM"

# heading as the page writes it (lowercased, spaces and hyphens folded) -> (slug for keys,
# catalogue model, what to say about the model, mixture of experts?)
MODELS: dict[str, tuple[str, str, str, bool]] = {
    "deepseek r1 0528": ("deepseek-r1-0528", "deepseek-v3",
                         "DeepSeek-R1-0528 (priced as DeepSeek-V3, the same shape)", True),
    "gpt oss 120b": ("gpt-oss-120b", "gpt-oss-120b", "gpt-oss-120b", True),
    "gpt oss 20b": ("gpt-oss-20b", "gpt-oss-20b", "gpt-oss-20b", True),
    "llama 4 scout": ("llama-4-scout", "llama-4-scout", "Llama 4 Scout", True),
    "llama 4 maverick": ("llama-4-maverick", "llama-4-maverick", "Llama 4 Maverick", True),
    "llama v4 maverick": ("llama-4-maverick", "llama-4-maverick", "Llama 4 Maverick", True),
    "llama v3.3 70b": ("llama-3.3-70b", "llama-3.1-70b",
                       "Llama 3.3 70B (priced as Llama 3.1 70B, the same shape)", False),
    "llama 3.3 70b": ("llama-3.3-70b", "llama-3.1-70b",
                      "Llama 3.3 70B (priced as Llama 3.1 70B, the same shape)", False),
    "llama 3.1 405b": ("llama-3.1-405b", "llama-3.1-405b", "Llama 3.1 405B", False),
    "llama 3.1 8b": ("llama-3.1-8b", "llama-3.1-8b", "Llama 3.1 8B", False),
    "qwen3 235b a22b": ("qwen3-235b-a22b", "qwen3-235b-a22b", "Qwen3-235B-A22B", True),
    "qwen3 30b a3b": ("qwen3-30b-a3b", "qwen3-30b-a3b", "Qwen3-30B-A3B", True),
}
GPUS = {"H100": "h100", "H200": "h200", "B200": "b200", "GB200": "gb200-nvl72"}
HOPPER = ("H100", "H200")
GPT_OSS = ("gpt-oss-120b", "gpt-oss-20b")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")
COLUMN = re.compile(r"^(\w+)<br/>(D?EP|TP)(\d+) \((FP8|FP4)\)$")
PAIR = re.compile(r"^(\d+)/(\d+)$")
# The KV cache's format where the page's options do not set it (every table but DeepSeek R1's
# and GPT-OSS's): the engine then takes the checkpoint's own, which the page does not print.
ASSUMPTIONS = (
    "The KV cache is FP8 in every run. The page sets it for DeepSeek R1 and GPT-OSS; for the "
    "other models it leaves the cache at the engine's default, which follows the ModelOpt "
    "checkpoint's quantization config, and does not print that config. The figures rule out "
    "a 16-bit cache: over a run of 128-token prompts and 4,096-token outputs the cache read "
    "per output token averages 2,176 tokens x 128 KiB for Llama 3.1 8B in BF16, so 3.35 TB/s "
    "of H100 memory bandwidth caps the rate near 11,700 tokens/s even with no weights to read "
    "and no compute, and the page's version at commit 00f37686 reports 14,325. Mixture-of-"
    "experts models run with attention data-parallel and their experts spread over the run's "
    "GPUs, even in columns labelled TP: the page's command for MoE models passes an "
    "expert-parallel size and its options file for them enables attention data parallelism "
    "(enable_attention_dp); the expert-parallel size is a variable the page does not fill in, "
    "taken here as the run's GPU count.")
UNIT_WORDS = {"per-gpu": "output tokens per second per GPU",
              "total": "Total Output Throughput (tokens/sec)"}


@dataclass(frozen=True)
class Cell:
    """One figure of a table: the model, GPU column, ISL/OSL row and the number printed."""

    heading: str
    column: str
    isl: int
    osl: int
    figure: str


def model_of(heading: str) -> tuple[str, str, str, bool] | None:
    """The MODELS entry a heading names, or None."""
    folded = re.sub(r"[\s-]+", " ", heading.lower()).strip()
    return MODELS.get(folded)


def table_row(line: str) -> list[str]:
    """A Markdown table row's cells, stripped."""
    return [part.strip() for part in line.strip().strip("|").split("|")]


def cells(text: str) -> list[Cell]:
    """Every non-empty cell of every table, with the heading above it."""
    found: list[Cell] = []
    heading, columns = "", list[str]()
    for line in text.splitlines():
        match = HEADING.match(line)
        if match:
            heading, columns = match.group(1), []
            continue
        if not line.startswith("|"):
            continue
        parts = table_row(line)
        if parts[0].startswith("Sequence Length"):
            columns = parts[1:]
            continue
        pair = PAIR.match(parts[0])
        if not pair or not columns:
            continue
        for column, figure in zip(columns, parts[1:], strict=True):
            if figure:
                found.append(Cell(heading, column, int(pair[1]), int(pair[2]), figure))
    return found


def requests_by_pair(text: str) -> dict[tuple[int, int], int]:
    """The page's dataset table: requests generated for each ISL/OSL pair. Its header names
    the input and output lengths first and the count last."""
    found: dict[tuple[int, int], int] = {}
    counting = False
    for line in text.splitlines():
        if not line.startswith("|"):
            counting = False
            continue
        parts = table_row(line)
        if parts[0] == "Input Length":
            counting = "Requests" in parts[-1] or "num_requests" in parts[-1]
            continue
        if counting and parts[0].isdigit() and parts[1].isdigit() and parts[-1].isdigit():
            found[(int(parts[0]), int(parts[1]))] = int(parts[-1])
    return found


def turns(pairs: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Training or held-out for each ISL/OSL pair, taking turns in page order (see above)."""
    sets: dict[tuple[int, int], str] = {}
    turn, previous = -1, None
    for pair in pairs:
        close = previous is not None and all(
            abs(a - b) <= 0.03 * max(a, b) for a, b in zip(pair, previous, strict=True))
        if not close:
            turn += 1
        sets[pair] = "training" if turn % 2 == 0 else "held_out"
        previous = pair
    return sets


def kv_fp8(text: str, label: str) -> bool:
    """Whether the page's LLM options for `label` ("DeepSeek R1:", "GPT-OSS:") set an FP8
    KV cache: the first yaml block after that line has kv_cache_config with dtype fp8."""
    block = re.search(rf"^{re.escape(label)}\s*$.*?```yaml\n(.*?)```", text, re.M | re.S)
    return bool(block and re.search(r"kv_cache_config:\s*\n\s+dtype: fp8", block[1]))


def point(cell: Cell, args: argparse.Namespace, sets: dict[tuple[int, int], str],
          text: str, sizes: dict[tuple[int, int], int]) -> dict | None:
    """The calibration point of one cell, or None for a column or model that is left out."""
    model = model_of(cell.heading)
    column = COLUMN.match(cell.column.replace("**", ""))
    if model is None or column is None or column[1] not in GPUS:
        return None
    slug, catalogue_model, name, moe = model
    gpu_name, layout, size, precision = column[1], column[2], int(column[3]), column[4]
    if slug in GPT_OSS and gpu_name in HOPPER:
        return None
    figure = float(cell.figure.replace(",", ""))
    gpus = size
    per_gpu: float
    if args.unit == "total":
        per_gpu = round(figure / gpus, 2)
        arithmetic = (f"{cell.figure} tokens/s, the run's Total Output Throughput over its "
                      f"{gpus} GPU{'s' if gpus > 1 else ''} -> {per_gpu:g} per GPU")
    else:
        per_gpu = int(figure) if figure.is_integer() else figure
        arithmetic = f"{cell.figure} output tokens/s per GPU as printed"
    fmt = precision.lower()
    case: dict[str, object] = {"model": catalogue_model, "tp": size}
    if layout == "DEP":
        case["ep"] = size
        layout_text = (f"attention data-parallel and experts spread over {size} GPUs "
                       f"(DEP{size}: --tp {size} --ep {size})")
    elif moe and size == 1:
        case["ep"] = 1
        layout_text = "one GPU"
    elif moe:
        case["ep"] = size
        layout_text = (f"attention data-parallel and experts spread over {size} GPUs, as the "
                       f"page's options for MoE models set (its column says TP{size}: see the "
                       f"set's assumptions)")
    else:
        layout_text = f"tensor parallel {size}" if size > 1 else "one GPU"
    case.update({"isl": cell.isl, "osl": cell.osl})
    size_text = ""
    if (cell.isl, cell.osl) in sizes:
        case["requests"] = sizes[(cell.isl, cell.osl)]
        size_text = (f"; the page's dataset table: {case['requests']} requests of "
                     f"{cell.isl}/{cell.osl}")
    if slug in GPT_OSS:
        case["weights"] = "fp4"
        quant = "MXFP4 expert weights (the checkpoint's own; the activations' format not given)"
        if kv_fp8(text, "GPT-OSS:"):
            case["kv"] = "fp8"
            quant += ", FP8 KV cache as the page's GPT-OSS options set"
    elif fmt == "fp4":
        case.update({"weights": "fp4", "activations": "fp4"})
        quant = "NVFP4 weights and activations (ModelOpt checkpoint)"
    else:
        case.update({"weights": "fp8", "activations": "fp8"})
        quant = "FP8 weights and activations"
    if slug == "deepseek-r1-0528" and kv_fp8(text, "DeepSeek R1:"):
        case["kv"] = "fp8"
        quant += ", FP8 KV cache as the page's DeepSeek R1 options set"
    if "kv" not in case:
        case["kv"] = "fp8"
        quant += ", FP8 KV cache assumed (the page does not print it: see the set's assumptions)"
    case["engine"] = "trtllm"
    count = f"{gpus} {gpu_name}{'s' if gpus > 1 else ''}"
    return {
        "key": f"{GPUS[gpu_name]}-trtllm-{args.commit[:8]}-{slug}-{layout.lower()}{size}-{fmt}"
               f"-{cell.isl}-{cell.osl}",
        "kind": "throughput",
        "what": (f"Offline output throughput per GPU, {name} on {count}, {layout_text}, "
                 f"{quant}, {cell.isl:,}-token prompts and {cell.osl:,}-token outputs, "
                 f"trtllm-bench at maximum load (PyTorch backend)"),
        "gpu": GPUS[gpu_name],
        "where": (f"table under \"{cell.heading}\", row {cell.isl}/{cell.osl}, column "
                  f"\"{cell.column.replace('<br/>', ' ')}\": {arithmetic}{size_text}"),
        "measured_tokens_per_s_per_gpu": per_gpu,
        "set": sets[(cell.isl, cell.osl)],
        "case": case,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a local copy of perf-overview.md")
    parser.add_argument("--unit", choices=sorted(UNIT_WORDS), required=True)
    parser.add_argument("--commit", required=True, help="the commit the copy is from")
    parser.add_argument("--path", required=True, help="the file's path in the repository")
    parser.add_argument("--describes", default="", help="how the page names its release")
    args = parser.parse_args(argv)
    text = args.source.read_text("utf-8")
    if UNIT_WORDS[args.unit] not in text:
        parser.error(f"the page does not say {UNIT_WORDS[args.unit]!r}; check --unit")
    found = cells(text)
    pairs = list(dict.fromkeys((cell.isl, cell.osl) for cell in found))
    sets = turns(pairs)
    sizes = requests_by_pair(text)
    points = [p for cell in found if (p := point(cell, args, sets, text, sizes)) is not None]
    held = sorted({f"{isl}/{osl}" for (isl, osl), s in sets.items() if s == "held_out"},
                  key=lambda pair: [int(n) for n in pair.split("/")])
    unit = ("output tokens per second per GPU, as the page prints them" if args.unit == "per-gpu"
            else "the page's Total Output Throughput of each run divided by the run's GPUs")
    document = {
        "publication": {
            "title": (f"NVIDIA/TensorRT-LLM, {args.path} at commit {args.commit[:8]}"
                      f"{args.describes}: Throughput Measurements, offline trtllm-bench runs; "
                      f"figures here are {unit}"),
            "url": f"https://github.com/{REPO}/blob/{args.commit}/{args.path}",
        },
        "measured_by": ("NVIDIA (TensorRT-LLM's trtllm-bench throughput, PyTorch backend, "
                        "DGX H100, DGX H200 and DGX B200 systems, and GB200 NVL72)"),
        "split": ("By ISL/OSL pair, decided before any prediction was looked at: the pairs, in "
                  "the order the page lists them, take turns, training first; a pair within 3% "
                  "of the one before it (1000/1000 then 1024/1024) shares its turn. Held out: "
                  + ", ".join(held) + "; every other pair is training."),
        "assumptions": ASSUMPTIONS,
        "points": points,
    }
    sys.stdout.write(dump(document, "scripts/transcribe/trtllm_perf_overview.py"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
