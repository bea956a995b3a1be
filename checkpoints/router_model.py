"""The router network (BERT encoder, pooling, linear head) and its tokenizer with the extended vocabulary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from torch import nn

from checkpoints.router_config import EncoderConfig
from checkpoints.router_data import gb2312_hanzi
from serve.config import MINILM_DIRNAME
from serve.router.torch_model import RouterModel, load_torch

__all__ = ["RouterModel", "build_tokenizer", "encoder_dir", "load_encoder", "load_torch", "save_torch"]

# Full-width punctuation and symbols customers type in Chinese text.
_CJK_SYMBOLS = "，。！？；：、“”‘’（）【】《》…—～￥·「」"


def encoder_dir(config: EncoderConfig, cache_dir: Path) -> Path:
    if config.source.startswith("embedded:"):
        name = config.source.split(":", 1)[1]
        if name != MINILM_DIRNAME:
            raise ValueError(f"unknown embedded encoder {name!r}; the embedded one is {MINILM_DIRNAME!r}")
        path = cache_dir / "models" / MINILM_DIRNAME
        if not (path / "config.json").is_file():
            raise FileNotFoundError(f"{path} missing: run `csreply prepare` first")
        return path
    path = Path(config.source).expanduser()
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"encoder.source {path} is not an HF model directory (no config.json)")
    return path


def build_tokenizer(source: Path, add_cjk: bool) -> tuple[Any, int, int]:
    """(tokenizers.Tokenizer, vocab size, characters added): GB2312 hanzi appended to the vocabulary when
    asked and missing.

    Appending keeps every original id, so the pretrained embeddings stay valid; BERT's pre-tokenizer already
    splits CJK characters one by one, so each new character becomes exactly one token."""
    from tokenizers.models import WordPiece
    from transformers import AutoTokenizer

    backend = AutoTokenizer.from_pretrained(source).backend_tokenizer
    vocab = backend.get_vocab()
    missing = (
        [ch for ch in dict.fromkeys(gb2312_hanzi() + list(_CJK_SYMBOLS)) if ch not in vocab]
        if add_cjk
        else []
    )
    if not missing:
        return backend, len(vocab), 0
    probe = "Where is my parcel? I paid $20 for express."
    before = backend.encode(probe).ids
    extended = dict(vocab)
    for ch in missing:
        extended[ch] = len(extended)
    old = backend.model
    backend.model = WordPiece(
        vocab=extended,
        unk_token=old.unk_token,
        max_input_chars_per_word=old.max_input_chars_per_word,
        continuing_subword_prefix=old.continuing_subword_prefix,
    )
    if backend.encode(probe).ids != before:
        raise RuntimeError("extending the vocabulary changed the ids of existing tokens")
    return backend, len(extended), len(missing)


def load_encoder(source: Path, vocab_size: int, attn_implementation: str = "sdpa") -> nn.Module:
    from transformers import AutoModel

    encoder = AutoModel.from_pretrained(source, attn_implementation=attn_implementation)
    if vocab_size != encoder.get_input_embeddings().num_embeddings:
        encoder.resize_token_embeddings(vocab_size, mean_resizing=True)
    return encoder


def save_torch(model: RouterModel, out_dir: Path, meta: dict[str, Any]) -> None:
    """Weights and encoder config, enough to rebuild the eager model (benchmarks, re-export)."""
    from safetensors.torch import save_file

    out_dir.mkdir(parents=True, exist_ok=True)
    model.encoder.config.save_pretrained(out_dir)  # type: ignore[union-attr,operator]
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out_dir / "router.safetensors"))
    (out_dir / "router_meta.json").write_text(json.dumps(meta, indent=2))
