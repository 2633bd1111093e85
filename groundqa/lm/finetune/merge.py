"""A LoRA adapter merged into its base model's weights, for a judgment made on every question.

llama.cpp applies an adapter given as ``lora_path`` at run time: two more small matrix products for each of the 126
tensors it touches (18 blocks of Gemma 3 270M, seven linear layers each, rank 16), on every prompt token. For the
tuned answer judge (:mod:`groundqa.judges.answer_judge`), which reads up to 14 sentences a question and is what makes
the slowest questions slow, that is about a quarter of each judgment (236 → 182 ms on 2 cores, ``python -m benchmarks
run --suite judge``, docs/BENCHMARKS.md session 34). So the judge runs a copy of the base model with
``W + (alpha / rank) · B·A`` already in its weights.

Only the tensors the adapter touches change: each is dequantized from the base GGUF, the product added in float32,
and the sum written as Q8_0 (re-quantizing to the base's Q4_K would round most of a delta that small back onto the
old grid); every other tensor and every metadata field is copied byte for byte. The margins differ from the run-time
adapter's by about 0.1 logit (floating-point order; Q8_0 and F16 copies differ from it alike), as another build of
llama.cpp's do.

The copy (about 290 MB) is written once under the home's model cache, named for both files' sha256, atomically (a
temporary file renamed into place) with a ``.sha256`` file beside it that is checked when the copy is used again: an
interrupted or damaged copy is written anew, never loaded.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from groundqa.lm.errors import LMBackendError
from groundqa.lm.finetune.adapter import AdapterInfo, base_model_sha256, file_sha256

MERGE_FORMAT = "q8_0-v1"
"""How a merge is made (the merged tensors' type, the recipe's version): part of the copy's name and of every cache
key that depends on its outputs, so a change of recipe never reuses what the old one gave."""
MERGED_FROM_KEY = "groundqa.merged_from"  # "<base sha256>+<adapter sha256>", written into the copy


def merged_path(base_gguf: Path, adapter: AdapterInfo, folder: Path) -> Path:
    """Where the merge of ``adapter`` into ``base_gguf`` lives under ``folder``."""
    return Path(folder) / f"{Path(base_gguf).stem}+{adapter.sha256[:16]}.{MERGE_FORMAT}.gguf"


def merged_model(base_gguf: Path, adapter: AdapterInfo, folder: Path, quiet: bool = False) -> Path:
    """The base model with ``adapter`` merged into its weights, written under ``folder`` on first use (about 15 s on
    2 cores, a line on stderr unless ``quiet``) and reused after, once its sha256 matches the one recorded beside it.
    A copy that cannot be written is a one-line :class:`LMBackendError`."""
    target = merged_path(base_gguf, adapter, folder)
    if _intact(target):
        return target
    if not quiet:
        print(f"groundqa: merging the answer judge's adapter into the embedded model, once ({target})",
              file=sys.stderr, flush=True)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".part")
        os.close(handle)
        try:
            _write_merged(Path(base_gguf), adapter, Path(temporary))
            digest = file_sha256(temporary)
            os.chmod(temporary, 0o644)  # mkstemp's 0600 would keep the copy from other users of a shared home
            os.replace(temporary, target)
            _sidecar(target).write_text(digest + "\n")
        finally:
            Path(temporary).unlink(missing_ok=True)
    except OSError as exc:
        raise LMBackendError(f"cannot write the merged answer-judge model {target}: {exc.strerror or exc}") from exc
    return target


def _sidecar(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _intact(target: Path) -> bool:
    """Whether ``target`` is a complete merge: its sha256 is the one recorded when it was written."""
    try:
        recorded = _sidecar(target).read_text().strip()
        return target.is_file() and bool(recorded) and file_sha256(target) == recorded
    except OSError:
        return False


def _write_merged(base_gguf: Path, adapter: AdapterInfo, out: Path) -> None:
    import numpy as np
    from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter, Keys
    from gguf.quants import dequantize, quantize

    base, lora = GGUFReader(base_gguf), GGUFReader(adapter.path)
    factors = {tensor.name: tensor for tensor in lora.tensors}
    targets = {name.rsplit(".", 1)[0] for name in factors}
    missing = sorted(targets - {tensor.name for tensor in base.tensors})
    if missing:
        raise LMBackendError(f"LoRA adapter {adapter.path} adapts tensors the base model {base_gguf.name} lacks "
                             f"({len(missing)} of {len(targets)}, e.g. {missing[0]})")
    writer = GGUFWriter(out, arch=str(base.fields[Keys.General.ARCHITECTURE].contents()))
    for field in base.fields.values():
        if field.name == Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue  # the writer writes these itself
        kind = field.types[0]
        writer.add_key_value(field.name, field.contents(), kind,
                             sub_type=field.types[-1] if kind == GGUFValueType.ARRAY else None)
    writer.add_string(MERGED_FROM_KEY, f"{base_model_sha256(base_gguf)}+{adapter.sha256}")
    for tensor in base.tensors:
        a, b = factors.get(f"{tensor.name}.lora_a"), factors.get(f"{tensor.name}.lora_b")
        if a is None or b is None:
            writer.add_tensor(tensor.name, tensor.data, raw_shape=tensor.data.shape, raw_dtype=tensor.tensor_type)
            continue
        down = dequantize(a.data, a.tensor_type).astype(np.float32)  # (rank, n_in)
        up = dequantize(b.data, b.tensor_type).astype(np.float32)  # (n_out, rank)
        rank = down.shape[0]
        # llama.cpp's own scaling of a LoRA product: alpha / rank, or 1 where the adapter gives no alpha
        scale = adapter.alpha / rank if adapter.alpha else 1.0
        weights = dequantize(tensor.data, tensor.tensor_type).astype(np.float32) + scale * (up @ down)
        packed = quantize(weights, GGMLQuantizationType.Q8_0)
        writer.add_tensor(tensor.name, packed, raw_shape=packed.shape, raw_dtype=GGMLQuantizationType.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
