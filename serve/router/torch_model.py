"""The router's PyTorch model and the loader of its saved weights (`<router>/pytorch`).

Serving uses the ONNX/TensorRT exports; this eager model is the baseline `csreply eval router --backend torch`
measures them against. checkpoints/router_model.py trains and saves it; the class lives here so the server
side reads a build output without importing the build tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn


class RouterModel(nn.Module):
    def __init__(self, encoder: nn.Module, num_labels: int, pooling: str = "mean") -> None:
        super().__init__()
        self.encoder = encoder
        self.pooling = pooling
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(int(encoder.config.hidden_size), num_labels)  # type: ignore[union-attr,arg-type]

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.head(self.dropout(self.pooled(input_ids, attention_mask)))

    def pooled(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        if self.pooling == "mean":
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-6)
        return hidden[:, 0]


class WithEmbedding(nn.Module):
    """The router as exported: its logits and the pooled sentence vector, L2-normalised, from one pass. The
    knowledge base and the reply bank search with that vector, so a message is encoded once for both."""

    def __init__(self, router: RouterModel) -> None:
        super().__init__()
        self.router = router

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.router.pooled(input_ids, attention_mask)
        embedding = pooled / pooled.norm(dim=-1, keepdim=True).clamp(min=1e-6)
        return self.router.head(self.router.dropout(pooled)), embedding


def load_torch(out_dir: Path, attn_implementation: str = "sdpa") -> RouterModel:
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModel

    meta = json.loads((out_dir / "router_meta.json").read_text())
    config = AutoConfig.from_pretrained(out_dir)
    config._attn_implementation = attn_implementation
    encoder = AutoModel.from_config(config, attn_implementation=attn_implementation)
    model = RouterModel(encoder, meta["num_labels"], meta["pooling"])
    model.load_state_dict(load_file(str(out_dir / "router.safetensors")))
    return model.eval()
