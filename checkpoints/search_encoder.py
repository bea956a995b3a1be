"""The English search encoder: the embedded MiniLM as it ships (not the router's fine-tuned copy), exported to
ONNX and quantized to INT8, for the knowledge base's and the reply bank's English search.

The router fine-tunes its encoder to tell 25 intents apart, so its sentence vectors say little about which
entry inside an intent answers a message. The shipped all-MiniLM-L6-v2 was trained to place paraphrases
together. On the team's English knowledge questions and on customer messages its vectors find the entry that
a lexical match misses (docs/knowledge.md has the figures). It knows English only: Chinese search keeps the
router's vectors.

INT8 with per-channel weights: 0.99 cosine to the FP32 vectors and about half the time (2.4 ms a message on
two cores), since the encoder runs for every English message on top of the router.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from checkpoints.staging import MANIFEST, file_digests, files_intact, install_dir, read_manifest, sha256_file
from serve.retrieval.semantic import MODEL_FILE, SEARCH_ENCODER_DIRNAME, SemanticEncoder

VERSION = 1  # bump when the export changes: a prepared directory of another version is rebuilt
PARITY_TEXTS = ("how long do I have to return a coat?", "my broadband keeps dropping every evening")
MIN_COSINE = 0.97  # INT8 against the PyTorch FP32 vectors, per parity text


def prepare_search_encoder(cache_dir: Path, encoder_dir: Path) -> Path:
    """<cache>/models/<SEARCH_ENCODER_DIRNAME>: built from the fetched MiniLM directory unless current."""
    out_dir = cache_dir / "models" / SEARCH_ENCODER_DIRNAME
    source = _source_digest(encoder_dir)
    if _is_current(out_dir, source):
        print(f"search encoder ready: {out_dir}", file=sys.stderr)
        return out_dir
    print("exporting the English search encoder (ONNX, INT8) ...", file=sys.stderr)
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        staged = Path(tmp) / "search"
        staged.mkdir()
        cosine = export(encoder_dir, staged)
        files = file_digests(staged)
        manifest = {"version": VERSION, "source_sha256": source, "files": files, "min_cosine": cosine}
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        install_dir(staged, out_dir)
    print(f"search encoder ready: {out_dir} (cosine to PyTorch >= {cosine:.3f})", file=sys.stderr)
    return out_dir


def export(encoder_dir: Path, out_dir: Path) -> float:
    """Writes model.int8.onnx and tokenizer.json to `out_dir`; returns the lowest cosine between its vectors
    and PyTorch's on PARITY_TEXTS (raises below MIN_COSINE)."""
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer
    from transformers import BertModel

    shutil.copy(encoder_dir / "tokenizer.json", out_dir / "tokenizer.json")
    # eager attention exports as MatMul/Softmax, which the optimizer fuses (its sdpa graph stays unfused)
    bert = BertModel.from_pretrained(encoder_dir, attn_implementation="eager", dtype=torch.float32).eval()
    pooled = _mean_pooled(bert).eval()
    encoder = SemanticEncoder.tokenizer_only(out_dir)
    sample = encoder.encode(list(PARITY_TEXTS))
    ids, mask = torch.from_numpy(sample.input_ids), torch.from_numpy(sample.attention_mask)
    with tempfile.TemporaryDirectory() as tmp:
        plain, fused = Path(tmp) / "plain.onnx", Path(tmp) / "fused.onnx"
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                pooled,
                (ids, mask),
                str(plain),
                dynamo=False,
                opset_version=17,
                input_names=["input_ids", "attention_mask"],
                output_names=["embedding"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "sequence"},
                    "attention_mask": {0: "batch", 1: "sequence"},
                    "embedding": {0: "batch"},
                },
            )
            reference = pooled(ids, mask).numpy()
        config = bert.config
        optimized = optimizer.optimize_model(
            str(plain),
            model_type="bert",
            num_heads=config.num_attention_heads,
            hidden_size=config.hidden_size,
        )
        optimized.save_model_to_file(str(fused))
        # DefaultTensorType: the fused graph has tensors shape inference cannot type (quantize_dynamic fails
        # with "Unable to find data type for weight_name=..." without it)
        quantize_dynamic(
            str(fused),
            str(out_dir / MODEL_FILE),
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    vectors = SemanticEncoder(out_dir, threads=1).embed(list(PARITY_TEXTS))
    cosine = float(np.min(np.sum(vectors * reference, axis=1)))
    if cosine < MIN_COSINE:
        raise RuntimeError(f"the INT8 search encoder's vectors differ from PyTorch's (cosine {cosine:.3f})")
    return cosine


def _mean_pooled(bert: Any) -> Any:
    """BERT + mean pooling over the real tokens + L2 normalisation: how all-MiniLM-L6-v2 makes a sentence
    vector (its sentence-transformers modules: Pooling with mean tokens, then Normalize)."""
    import torch

    class MeanPooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    return MeanPooled()


def _source_digest(encoder_dir: Path) -> str:
    """The sha256 of the MiniLM weights the export is made from. `prepare` has just checked every file of that
    directory against its manifest, so the recorded digest is the file's; hashing the 90 MB again would only
    repeat that check."""
    recorded = (read_manifest(encoder_dir) or {}).get("files", {}).get("model.safetensors")
    return recorded if isinstance(recorded, str) else sha256_file(encoder_dir / "model.safetensors")


def _is_current(out_dir: Path, source_sha256: str) -> bool:
    manifest = read_manifest(out_dir)
    if not manifest or manifest.get("version") != VERSION or manifest.get("source_sha256") != source_sha256:
        return False
    return files_intact(out_dir, manifest)
