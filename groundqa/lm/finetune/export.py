"""peft LoRA weights → a llama.cpp LoRA adapter GGUF, written directly with the ``gguf`` package.

llama.cpp's own converter (``convert_lora_to_gguf.py``) lives only in llama-cpp-python's sdist, not
in the installed wheel, so the adapter is written here. Layout, as llama.cpp's adapter loader checks
it: KVs ``general.type = adapter``, ``general.architecture = gemma3``, ``adapter.type = lora``,
``adapter.lora.alpha``; for every adapted base tensor ``W`` (``blk.N.attn_q.weight``, numpy shape
``[out, in]``) two tensors ``W.lora_a`` of shape ``[rank, in]`` and ``W.lora_b`` of shape
``[out, rank]`` (peft's ``lora_A``/``lora_B`` orientation). llama.cpp scales ``B·A`` by
``alpha / rank``, the same as peft without rsLoRA. Gemma 3 needs no tensor permutation (unlike
LLaMA's q/k). The base model's sha256 is recorded so an adapter is refused on another base.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from groundqa.lm.finetune.adapter import ARCHITECTURE, BASE_SHA256_KEY, RANK_KEY, adapter_sha256

__all__ = ["adapter_sha256", "gguf_lora_tensors", "write_adapter_gguf"]

# peft state-dict key: [base_model.model.]model.layers.N.<module>.lora_A[.default].weight
_PEFT_KEY = re.compile(r"^(?:base_model\.model\.)?(?P<module>.+)\.lora_(?P<ab>[AB])(?:\.\w+)?\.weight$")
_DTYPES = {"f16": np.float16, "f32": np.float32}


def _numpy(tensor: Any) -> np.ndarray:
    if hasattr(tensor, "detach"):  # a torch tensor
        tensor = tensor.detach().to("cpu").float().numpy()
    return np.asarray(tensor, dtype=np.float32)


def gguf_lora_tensors(state: Mapping[str, Any], n_blocks: int) -> dict[str, np.ndarray]:
    """Map a peft LoRA state dict (``...layers.0.self_attn.q_proj.lora_A.weight``) to llama.cpp names
    (``blk.0.attn_q.weight.lora_a``) with float32 arrays; raises ValueError on a module llama.cpp's
    Gemma 3 map does not know, or on an A without its B."""
    import gguf

    name_map = gguf.get_tensor_name_map(gguf.MODEL_ARCH.GEMMA3, n_blocks)
    out: dict[str, np.ndarray] = {}
    for key, tensor in state.items():
        match = _PEFT_KEY.match(key)
        if not match:
            raise ValueError(f"not a LoRA weight: {key}")
        target = name_map.get_name(match["module"])
        if target is None:
            raise ValueError(f"no llama.cpp tensor for {match['module']}")
        out[f"{target}.weight.lora_{match['ab'].lower()}"] = _numpy(tensor)
    for name in out:
        pair = name[:-1] + ("b" if name.endswith("a") else "a")
        if pair not in out:
            raise ValueError(f"{name} has no {pair}")
        if name.endswith("a") and out[name].shape[0] != out[pair].shape[1]:
            raise ValueError(f"{name} {out[name].shape} and {pair} {out[pair].shape} disagree on the rank")
    return out


def write_adapter_gguf(
    state: Mapping[str, Any],
    out_path: str | Path,
    *,
    alpha: float,
    base_sha256: str,
    n_blocks: int,
    dtype: str = "f16",
    name: str = "groundqa LoRA",
) -> Path:
    """Write peft LoRA weights as a llama.cpp adapter GGUF at ``out_path``, atomically (a temporary
    file in the same folder, renamed at the end: no half-written adapter is ever left).

    Args:
        state: peft LoRA state dict (``get_peft_model_state_dict``), torch tensors or arrays.
        out_path: where the adapter goes.
        alpha: LoRA alpha (llama.cpp scales ``B·A`` by ``alpha / rank``).
        base_sha256: sha256 of the base GGUF the LoRA was trained on (checked at load).
        n_blocks: the base model's number of transformer blocks (name map).
        dtype: ``"f16"`` (half the size, what llama.cpp's converter writes by default) or ``"f32"``.
        name: ``general.name`` of the adapter.
    """
    import gguf

    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {sorted(_DTYPES)}, not {dtype!r}")
    tensors = gguf_lora_tensors(state, n_blocks)
    if not tensors:
        raise ValueError("no LoRA weights to export")
    ranks = {array.shape[0] for key, array in tensors.items() if key.endswith("lora_a")}
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".tmp", dir=out_path.parent)
    os.close(handle)
    try:
        writer = gguf.GGUFWriter(tmp, ARCHITECTURE)
        writer.add_type(gguf.GGUFType.ADAPTER)
        writer.add_name(name)
        writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
        writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
        writer.add_string(BASE_SHA256_KEY, base_sha256)
        if len(ranks) == 1:
            writer.add_uint32(RANK_KEY, ranks.pop())
        for key in sorted(tensors):
            writer.add_tensor(key, np.ascontiguousarray(tensors[key].astype(_DTYPES[dtype])))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.chmod(tmp, 0o644)  # mkstemp made it private; an adapter is an ordinary file
        os.replace(tmp, out_path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out_path
