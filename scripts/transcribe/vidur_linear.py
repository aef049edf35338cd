"""Transcribe the matmuls of Vidur's compute profiles into a calibration set.

Reads one or more of microsoft/vidur's data/profiling/compute/<gpu>/<org>/<model>/mlp.csv
(local copies, by path), each timing every operator of one transformer layer in FP16 for a
range of token counts and tensor-parallel widths, medians in ms. Prints the calibration set
(content/catalogue/calibration/<slug>.yaml) on stdout.

Kept: the four linear layers (attn_pre_proj = QKV, attn_post_proj = output projection,
mlp_up_proj = gate and up as one matmul, mlp_down_proj), at the token counts in TOKENS and
the widths given by --tp; for each (tokens, width) the first row of the file, as the A100
set already in the catalogue does (a few counts have two rows). The matmul shapes come from
the row's own n_head, n_kv_head, n_embd, n_expanded_embd and use_gated_mlp, split over the
width the way Vidur's profiler splits them (column-parallel QKV and up, row-parallel output
and down). Every point is held out: nothing is fitted to these profiles.

    python scripts/transcribe/vidur_linear.py --gpu h100 --commit <sha> --tp 1 \\
        Llama-2-7b-hf=llama2-7b=.../Llama-2-7b-hf/mlp.csv \\
        Llama-2-70b-hf=llama2-70b=.../Llama-2-70b-hf/mlp.csv:1,8
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from calibration_yaml import dump

TOKENS = (1, 16, 64, 256, 1024, 4096)
REPO = "microsoft/vidur"
# operator column -> (key part, what it is)
OPERATORS = {
    "attn_pre_proj": ("qkv", "QKV projection"),
    "attn_post_proj": ("o", "attention output projection"),
    "mlp_up_proj": ("up", "MLP gate and up projection (one matmul)"),
    "mlp_down_proj": ("down", "MLP down projection"),
}


def shapes(row: dict[str, str], width: int) -> dict[str, tuple[int, int]]:
    """(k, n) of each operator's matmul on one GPU of `width` tensor-parallel GPUs."""
    heads, kv_heads = int(row["n_head"]), int(row["n_kv_head"])
    hidden, expanded = int(row["n_embd"]), int(row["n_expanded_embd"])
    head_dim = hidden // heads
    up = expanded * (2 if row["use_gated_mlp"] == "True" else 1)
    full = {
        "attn_pre_proj": (hidden, (heads + 2 * kv_heads) * head_dim, "n"),
        "attn_post_proj": (heads * head_dim, hidden, "k"),
        "mlp_up_proj": (hidden, up, "n"),
        "mlp_down_proj": (expanded, hidden, "k"),
    }
    split: dict[str, tuple[int, int]] = {}
    for name, (k, n, cut) in full.items():
        if (k if cut == "k" else n) % width:
            raise ValueError(f"{name}: {k} x {n} does not split over {width} GPUs")
        split[name] = (k // width, n) if cut == "k" else (k, n // width)
    return split


def points(label: str, slug: str, path: Path, widths: list[int], gpu: str) -> list[dict]:
    """The points of one model's file."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    found: list[dict] = []
    for width in widths:
        for tokens in TOKENS:
            line, row = next(
                (number + 2, row) for number, row in enumerate(rows)
                if row["num_tokens"] == str(tokens)
                and row["num_tensor_parallel_workers"] == str(width))
            for name, (k, n) in shapes(row, width).items():
                part, what = OPERATORS[name]
                median = round(float(row[f"time_stats.{name}.median"]), 6)
                over = f" (one GPU's share at tensor parallel {width})" if width > 1 else ""
                found.append({
                    "key": f"{gpu}-vidur-{slug}-{part}-tp{width}-{tokens}",
                    "kind": "linear",
                    "what": (f"{label} {what}{over}, {k} x {n}, {tokens:,} token"
                             f"{'s' if tokens > 1 else ''}, FP16 (priced as BF16, the same "
                             f"tensor-core rate)"),
                    "gpu": gpu,
                    "where": (f"{path.parent.name}/mlp.csv, line {line} (the first row with "
                              f"num_tokens {tokens}, num_tensor_parallel_workers {width}): "
                              f"time_stats.{name}.median"),
                    "measured_ms": median,
                    "set": "held_out",
                    "case": {"tokens": tokens, "k": k, "n": n, "weights": "bf16",
                             "activations": "bf16"},
                })
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+",
                        help="LABEL=SLUG=PATH[:W,W...]: Vidur's model folder name, the slug "
                             "for keys, the mlp.csv copy, and its widths (default --tp)")
    parser.add_argument("--gpu", required=True, help="the catalogue GPU, e.g. h100")
    parser.add_argument("--commit", required=True, help="the vidur commit the copies are from")
    parser.add_argument("--tp", default="1", help="default widths, e.g. 1 or 1,8")
    args = parser.parse_args(argv)
    found: list[dict] = []
    folders: list[str] = []
    for spec in args.models:
        label, slug, rest = spec.split("=", 2)
        path_text, _, widths = rest.partition(":")
        path = Path(path_text)
        found += points(label, slug, path, [int(w) for w in (widths or args.tp).split(",")],
                        args.gpu)
        folders.append(label)
    base = f"data/profiling/compute/{args.gpu}"
    document = {
        "publication": {
            "title": (f"Vidur (Agrawal et al., MLSys 2024), {base}/meta-llama/"
                      f"{{{','.join(folders)}}}/mlp.csv at commit {args.commit[:8]}: each "
                      f"operator of one layer timed on one {args.gpu.upper()} in FP16, "
                      f"medians in ms"),
            "url": f"https://github.com/{REPO}/tree/{args.commit}/{base}/meta-llama",
        },
        "measured_by": "Vidur (Agrawal et al., MLSys 2024)",
        "split": ("All held out, decided before any prediction was looked at: an independent "
                  "profile of matmuls on this GPU that nothing is fitted to."),
        "points": found,
    }
    sys.stdout.write(dump(document, "scripts/transcribe/vidur_linear.py"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
