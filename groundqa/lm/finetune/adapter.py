"""A trained LoRA adapter as a value, and the checks run before llama.cpp ever sees the file.

llama.cpp answers a bad adapter with a C++ exception text or a crash, and an adapter trained on
another base model may load and quietly produce nonsense. So the file is checked first (exists, is a
GGUF LoRA adapter, has the expected sha256, was made for this base model) and each failure is one
:class:`~groundqa.lm.errors.LMBackendError` line.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundqa.lm.errors import LMBackendError

ARCHITECTURE = "gemma3"
BASE_SHA256_KEY = "groundqa.base_model_sha256"  # sha256 of the base GGUF the adapter was trained on
RANK_KEY = "groundqa.lora.rank"
_BASE_SHA_CACHE: dict[tuple[str, int, int], str] = {}


@dataclass(frozen=True)
class Adapter:
    """A LoRA adapter GGUF and the sha256 it must have (``None``: not pinned)."""

    path: Path
    sha256: str | None = None

    @property
    def tag(self) -> str:
        """The short id that goes into the LM's model id (first 12 hex digits of the sha256)."""
        return (self.sha256 or file_sha256(self.path))[:12]


@dataclass(frozen=True)
class AdapterInfo:
    """What :func:`verify_adapter` read from a valid adapter file."""

    path: Path
    sha256: str
    alpha: float
    rank: int | None
    base_sha256: str | None
    n_tensors: int


def file_sha256(path: str | Path) -> str:
    """sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def adapter_sha256(path: str | Path) -> str:
    """sha256 of an adapter GGUF (one line :class:`LMBackendError` when it cannot be read)."""
    try:
        return file_sha256(path)
    except FileNotFoundError as exc:
        raise LMBackendError(f"LoRA adapter not found: {path}") from exc
    except OSError as exc:
        raise LMBackendError(f"cannot read LoRA adapter {path}: {exc.strerror or exc}") from exc


def base_model_sha256(path: str | Path) -> str:
    """sha256 of a base model GGUF, remembered per (path, size, mtime) for the life of the process."""
    stat = os.stat(path)
    key = (str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _BASE_SHA_CACHE:
        _BASE_SHA_CACHE[key] = file_sha256(path)
    return _BASE_SHA_CACHE[key]


def _field(reader: Any, key: str) -> Any:
    field = reader.fields.get(key)
    return None if field is None else field.contents()


def _read(path: Path) -> tuple[dict[str, Any], int]:
    """The adapter's metadata fields of interest and its tensor count; raises on a file that is not a GGUF."""
    from gguf import GGUFReader

    reader = GGUFReader(path)
    keys = ("general.type", "general.architecture", "adapter.type", "adapter.lora.alpha", BASE_SHA256_KEY, RANK_KEY)
    fields = {key: _field(reader, key) for key in keys}
    for tensor in reader.tensors:  # touch every tensor's extent: a truncated file fails here
        if tensor.data.nbytes != tensor.n_bytes:
            raise ValueError(f"tensor {tensor.name} is truncated")
    return fields, len(reader.tensors)


def verify_adapter(path: str | Path, sha256: str | None = None, base_gguf: str | Path | None = None) -> AdapterInfo:
    """Check a LoRA adapter GGUF before loading it; raise a one-line :class:`LMBackendError` when the
    file is missing, is not a GGUF LoRA adapter (or is corrupt), does not have ``sha256``, or was made
    for a base model other than ``base_gguf`` (its recorded base sha256 differs)."""
    path = Path(path)
    if not path.is_file():
        raise LMBackendError(f"LoRA adapter not found: {path}")
    actual = adapter_sha256(path)
    if sha256 and actual != sha256.lower():
        raise LMBackendError(f"LoRA adapter {path} has sha256 {actual[:12]}…, expected {sha256[:12]}… "
                             "(the file changed since it was recorded)")
    try:
        fields, n_tensors = _read(path)
    except Exception as exc:  # gguf raises ValueError, struct/numpy errors, IndexError... on a bad file
        raise LMBackendError(f"{path} is not a valid GGUF LoRA adapter (corrupt or another format)") from exc
    if fields["general.type"] != "adapter" or fields["adapter.type"] != "lora" or not n_tensors:
        raise LMBackendError(f"{path} is a GGUF file but not a LoRA adapter")
    if fields["general.architecture"] != ARCHITECTURE:
        raise LMBackendError(f"LoRA adapter {path} is for a {fields['general.architecture']} model, "
                             f"not the embedded {ARCHITECTURE} model")
    base_sha = fields[BASE_SHA256_KEY]
    if base_gguf is not None and base_sha and base_sha != base_model_sha256(base_gguf):
        raise LMBackendError(f"LoRA adapter {path} was made for another base model "
                             f"(sha256 {base_sha[:12]}…), not {Path(base_gguf).name}")
    rank = fields[RANK_KEY]
    return AdapterInfo(path=path, sha256=actual, alpha=float(fields["adapter.lora.alpha"] or 0.0),
                       rank=int(rank) if rank is not None else None, base_sha256=base_sha, n_tensors=n_tensors)
