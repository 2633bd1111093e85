"""all-MiniLM-L6-v2 in plain torch: the sentence-transformers model, without importing sentence-transformers.

The encoder is six BERT layers (hidden 384, 12 heads), then a mean over the tokens and an L2 norm, exactly
as the model's ``modules.json`` says (Transformer, mean Pooling, Normalize). Importing sentence-transformers
(and through it transformers, scikit-learn and scipy) took 6.7 s of every cold process on 2 cores, before a
single question was embedded; torch, tokenizers and safetensors take 1.4 s. The vectors are the same:
``tests/test_minilm.py`` holds them to sentence-transformers' own within float rounding (cosine ≥ 0.99999),
so stores, caches and calibrated gates built with either stay valid.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np


class MiniLMEncoder:
    """``encode(texts) -> np.ndarray`` (float32, one normalised row per text), as
    ``SentenceTransformer.encode(..., normalize_embeddings=True, convert_to_numpy=True)`` returns it."""

    def __init__(self, path: str | Path) -> None:
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        folder = Path(path)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        limit = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        if not pooling.get("pooling_mode_mean_tokens") or config.get("hidden_act") != "gelu":
            raise ValueError(f"{folder} is not a mean-pooled BERT sentence encoder")
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.dimension = int(config["hidden_size"])
        self.max_seq_length = int(limit)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))
        self.weights: dict[str, Any] = {k: v.float() for k, v in load_file(str(folder / "model.safetensors")).items()}

    def __deepcopy__(self, memo: dict[int, Any]) -> MiniLMEncoder:
        return self  # read-only weights: copies of a program share one encoder

    def get_sentence_embedding_dimension(self) -> int:
        return self.dimension

    def encode(self, texts: list[str], batch_size: int = 32, normalize_embeddings: bool = True,
               show_progress_bar: bool = False, convert_to_numpy: bool = True) -> np.ndarray:
        """Normalised sentence vectors of ``texts``, in order (batched longest first, as sentence-transformers
        does, so that a batch pads little)."""
        import torch

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                chunk = order[start: start + batch_size]
                encodings = self.tokenizer.encode_batch([texts[i] for i in chunk])
                ids = torch.tensor([e.ids for e in encodings], dtype=torch.long)
                mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.long)
                vectors = self._forward(ids, mask)
                if normalize_embeddings:
                    vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
                out[chunk] = vectors.float().numpy()
        return out

    def _forward(self, ids: Any, mask: Any) -> Any:
        import torch

        w, f = self.weights, torch.nn.functional
        length = ids.shape[1]
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = f.layer_norm(x, (self.dimension,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        batch, size = ids.shape[0], self.dimension // self.heads
        blocked = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def dense(t: Any, name: str, p: str = p) -> Any:
                return f.linear(t, w[f"{p}{name}.weight"], w[f"{p}{name}.bias"])

            def split(t: Any) -> Any:
                return t.view(batch, length, self.heads, size).transpose(1, 2)

            q, k, v = (split(dense(x, f"attention.self.{name}")) for name in ("query", "key", "value"))
            attended = f.scaled_dot_product_attention(q, k, v, attn_mask=blocked, scale=1.0 / math.sqrt(size))
            context = attended.transpose(1, 2).reshape(batch, length, self.dimension)
            x = f.layer_norm(dense(context, "attention.output.dense") + x, (self.dimension,),
                             w[f"{p}attention.output.LayerNorm.weight"], w[f"{p}attention.output.LayerNorm.bias"], self.eps)
            hidden = f.gelu(dense(x, "intermediate.dense"))
            x = f.layer_norm(dense(hidden, "output.dense") + x, (self.dimension,),
                             w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"], self.eps)
        weights = mask.unsqueeze(-1).to(x.dtype)
        return (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)


__all__ = ["MiniLMEncoder"]
