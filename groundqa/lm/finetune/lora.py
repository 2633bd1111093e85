"""Train a LoRA for the embedded Gemma 3 270M on CPU, from the shipped GGUF, and export it to GGUF.

Why it is built this way (measured on a 2-core machine, see DESIGN.md "Compiling the gates and the
weights"):

* transformers loads the Q4_K_M GGUF dequantised (268M fp32 parameters), so the LoRA is trained on
  the very weights llama.cpp runs. Dequantising takes ~30 s; the result is cached once as safetensors
  next to the GGUF (``<name>.hf-<sha12>/``), which later runs load in a few seconds.
* Tokens come from llama.cpp's own tokenizer (vocab-only load), so training sees the token ids the
  engine feeds the model at inference.
* The loss is on the completion tokens only, and ``lm_head`` (262,144 × 640) is applied to those
  positions only: full-sequence logits make a step 15-30× slower.
* Checkpoints (LoRA weights, optimizer, step, data order, losses) go to ``out_dir/checkpoint``
  every ``checkpoint_every`` steps and on Ctrl-C, so a rerun resumes; the adapter GGUF is written
  atomically, and a rerun of a finished run returns the recorded result without training.
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import math
import os
import random
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from groundqa.lm.errors import LMBackendError
from groundqa.lm.finetune.adapter import adapter_sha256, base_model_sha256
from groundqa.lm.finetune.export import write_adapter_gguf
from groundqa.lm.finetune.records import TrainRecord

logger = logging.getLogger(__name__)

TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
ADAPTER_FILE = "adapter.gguf"
CHECKPOINT_DIR = "checkpoint"
RESULT_FILE = "result.json"
FORMAT_VERSION = 1  # part of the run fingerprint: a checkpoint from another trainer layout is not resumed


class StepReport(BaseModel):
    """What the ``progress`` callback receives after every optimizer step."""

    step: int  # 1-based number of the step just done
    total_steps: int
    epoch: int  # 0-based
    loss: float  # mean cross-entropy over this example's completion tokens
    seconds: float  # wall time of this step
    tokens: int  # tokens in this step's sequence (prompt + completion)


class TrainResult(BaseModel):
    """A finished LoRA training run."""

    adapter_path: Path
    sha256: str  # of the adapter GGUF
    base_sha256: str  # of the base GGUF it was trained on (also recorded in the adapter)
    losses: list[float]  # per step, resumed steps included
    steps: int
    resumed_from: int = 0  # step the run continued from (0: from scratch)
    seconds: float  # training time, resumed parts included (not model loading or export)
    n_records: int
    n_tokens: int  # prompt + completion tokens of one pass over the records, after truncation
    n_completion_tokens: int  # of those, the tokens the loss is computed on
    peak_rss_mb: float = 0.0  # peak resident memory of the process when the run ended


@dataclass(frozen=True)
class Encoded:
    """One tokenized example: ``ids`` = BOS + prompt + completion; the loss is on ``ids[n_prompt:]``."""

    ids: list[int]
    n_prompt: int


# -- base model and tokenizer --------------------------------------------------------------------
def hf_model_dir(base_gguf: Path, base_sha256: str) -> Path:
    """Where the dequantised transformers copy of ``base_gguf`` is cached (next to the GGUF)."""
    return base_gguf.parent / f"{base_gguf.stem}.hf-{base_sha256[:12]}"


def _dequantise_to(base_gguf: Path, target: Path) -> None:
    """Load the GGUF in transformers (dequantised to fp32) and save it as a plain safetensors model,
    atomically (a temporary folder renamed at the end)."""
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM

    logger.info("dequantising %s for training (once; cached in %s)", base_gguf.name, target)
    model = AutoModelForCausalLM.from_pretrained(base_gguf.parent, gguf_file=base_gguf.name, dtype=torch.float32)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        save_model(model, str(tmp / "model.safetensors"))  # tied lm_head/embeddings saved once
        config = model.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config  # the weights are plain fp32 now
        config.architectures = [type(model).__name__]
        config.save_pretrained(tmp)
        os.chmod(tmp, 0o755)  # mkdtemp made it private
        try:
            os.replace(tmp, target)
        except OSError:  # another process cached it first
            if not (target / "model.safetensors").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        del model
        gc.collect()


def load_base_model(base_gguf: Path, base_sha256: str | None = None) -> Any:
    """The base model as a transformers ``Gemma3ForCausalLM`` in fp32, from the dequantised cache
    (built on first use)."""
    import torch
    from transformers import AutoModelForCausalLM

    base_gguf = Path(base_gguf)
    target = hf_model_dir(base_gguf, base_sha256 or base_model_sha256(base_gguf))
    if not (target / "model.safetensors").is_file():
        _dequantise_to(base_gguf, target)
    return AutoModelForCausalLM.from_pretrained(target, dtype=torch.float32, attn_implementation="sdpa")


def llama_tokenizer(base_gguf: Path) -> Callable[[str, bool], list[int]]:
    """llama.cpp's tokenizer for the base GGUF (vocab only, no weights): ``(text, add_bos) -> ids``,
    exactly as the engine tokenizes a prompt."""
    from llama_cpp import Llama

    vocab = Llama(model_path=str(base_gguf), vocab_only=True, verbose=False)
    return lambda text, bos: vocab.tokenize(text.encode("utf-8"), add_bos=bos, special=False)


def encode(records: Sequence[TrainRecord], tokenize: Callable[[str, bool], list[int]], max_len: int) -> list[Encoded]:
    """Tokenize records as the engine does (BOS + prompt; the completion continues it). Sequences over
    ``max_len`` lose prompt tokens from the left (after BOS), keeping the completion; a completion
    alone over ``max_len - 2`` tokens is cut at its end."""
    if max_len < 8:
        raise ValueError(f"max_len must be at least 8 tokens, not {max_len}")
    out = []
    for record in records:
        prompt = tokenize(record.prompt, True)
        completion = tokenize(record.completion, False)[: max_len - 2]
        if len(prompt) + len(completion) > max_len:
            keep = max_len - len(completion) - 1
            prompt = prompt[:1] + prompt[len(prompt) - keep:]
        out.append(Encoded(ids=prompt + completion, n_prompt=len(prompt)))
    return out


# -- training ------------------------------------------------------------------------------------
def _fingerprint(encoded: Sequence[Encoded], settings: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps({**settings, "version": FORMAT_VERSION}, sort_keys=True).encode())
    for item in encoded:
        digest.update(json.dumps([item.n_prompt, item.ids]).encode())
    return digest.hexdigest()


def _data_order(n_records: int, total_steps: int, seed: int) -> list[int]:
    """Example index per step: a fresh seeded shuffle of all records for every epoch."""
    order: list[int] = []
    for epoch in range(math.ceil(total_steps / n_records)):
        indices = list(range(n_records))
        random.Random(f"{seed}:{epoch}").shuffle(indices)
        order += indices
    return order[:total_steps]


def completion_loss(model: Any, ids: Any, n_prompt: int) -> Any:
    """Mean cross-entropy of the completion tokens ``ids[n_prompt:]`` given everything before them.

    Runs the transformer body on the whole sequence but applies ``lm_head`` only at the positions
    that predict completion tokens (never full-sequence logits over the 262k vocabulary)."""
    import torch
    import torch.nn.functional as F

    hidden = model.model(input_ids=ids, use_cache=False).last_hidden_state
    logits = model.lm_head(hidden[0, n_prompt - 1: ids.shape[1] - 1]).float()
    cap = getattr(model.config, "final_logit_softcapping", None)
    if cap:
        logits = torch.tanh(logits / cap) * cap
    return F.cross_entropy(logits, ids[0, n_prompt:])


def _save_checkpoint(directory: Path, state: dict[str, Any]) -> None:
    """Write the checkpoint atomically (``state.pt`` replaced in one rename)."""
    import torch

    directory.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=".state.", suffix=".tmp", dir=directory)
    os.close(handle)
    try:
        torch.save(state, tmp)
        os.replace(tmp, directory / "state.pt")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _load_checkpoint(directory: Path, fingerprint: str) -> dict[str, Any] | None:
    import torch

    path = directory / "state.pt"
    if not path.is_file():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception:  # a damaged checkpoint is ignored, the run starts over
        logger.warning("ignoring unreadable checkpoint %s", path)
        return None
    if state.get("fingerprint") != fingerprint:
        logger.warning("ignoring checkpoint %s: it belongs to another run (data or settings differ)", path)
        return None
    return state


def _finished(out_dir: Path, fingerprint: str) -> TrainResult | None:
    """The recorded result of an identical finished run whose adapter is still intact, else None."""
    path = out_dir / RESULT_FILE
    try:
        recorded = json.loads(path.read_text())
        result = TrainResult.model_validate(recorded["result"])
    except (OSError, ValueError, KeyError):
        return None
    if recorded.get("fingerprint") != fingerprint or not result.adapter_path.is_file():
        return None
    return result if adapter_sha256(result.adapter_path) == result.sha256 else None


def _write_result(out_dir: Path, fingerprint: str, result: TrainResult) -> None:
    tmp = out_dir / f".{RESULT_FILE}.tmp"
    tmp.write_text(json.dumps({"fingerprint": fingerprint, "result": result.model_dump(mode="json")}, indent=1))
    os.replace(tmp, out_dir / RESULT_FILE)


def _peak_rss_mb() -> float:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def train_lora(
    records: Sequence[TrainRecord],
    out_dir: str | Path,
    *,
    base_gguf: Path,
    seed: int = 0,
    epochs: int = 1,
    max_steps: int | None = None,
    lr: float = 2e-4,
    rank: int = 16,
    alpha: float = 32,
    dropout: float = 0.0,
    max_len: int = 1024,
    max_grad_norm: float = 1.0,
    checkpoint_every: int = 25,
    threads: int | None = None,
    progress: Callable[[StepReport], None] | None = None,
    resume: bool = True,
) -> TrainResult:
    """Train a LoRA on ``records`` (one example per optimizer step) and write ``out_dir/adapter.gguf``.

    Args:
        records: prompt/completion pairs as the engine renders them (``records_from_chat``).
        out_dir: run folder: the adapter, ``result.json`` and, while unfinished, ``checkpoint/``.
        base_gguf: the base model GGUF (``embedded.model_path(cache_dir)``).
        seed: seeds the LoRA initialisation and the data order.
        epochs: passes over the records (ignored when ``max_steps`` is given).
        max_steps: number of optimizer steps; ``None`` = ``epochs × len(records)``.
        lr: AdamW learning rate (constant, no weight decay).
        rank: LoRA rank ``r`` on q/k/v/o/gate/up/down of every block.
        alpha: LoRA alpha; the update is scaled by ``alpha / rank``.
        dropout: LoRA dropout (0 keeps runs reproducible).
        max_len: tokens per example at most; longer prompts are cut from the left, keeping the completion.
        max_grad_norm: gradient clipping norm.
        checkpoint_every: save a resumable checkpoint every this many steps (and on Ctrl-C).
        threads: torch CPU threads; ``None`` = all cores (restored afterwards).
        progress: called with a :class:`StepReport` after every step; it may raise KeyboardInterrupt
            to stop the run (the checkpoint is saved first).
        resume: continue from a matching checkpoint, or return a matching finished run as is;
            ``False`` trains from scratch.

    Raises:
        ValueError: no records, or an argument out of range.
        LMBackendError: ``base_gguf`` does not exist.
    """
    if not records:
        raise ValueError("no training examples: nothing to fine-tune on")
    if epochs < 1 or (max_steps is not None and max_steps < 1) or rank < 1 or lr <= 0 or checkpoint_every < 1:
        raise ValueError("epochs, max_steps, rank and checkpoint_every must be ≥ 1 and lr > 0")
    out_dir, base_gguf = Path(out_dir).resolve(), Path(base_gguf)
    if not base_gguf.is_file():
        raise LMBackendError(f"base model GGUF not found: {base_gguf}")
    out_dir.mkdir(parents=True, exist_ok=True)
    base_sha = base_model_sha256(base_gguf)
    encoded = encode(records, llama_tokenizer(base_gguf), max_len)
    total = max_steps if max_steps is not None else epochs * len(records)
    settings = {"base": base_sha, "seed": seed, "steps": total, "lr": lr, "rank": rank, "alpha": alpha,
                "dropout": dropout, "max_len": max_len, "max_grad_norm": max_grad_norm,
                "targets": list(TARGET_MODULES)}
    fingerprint = _fingerprint(encoded, settings)
    if resume and (done := _finished(out_dir, fingerprint)) is not None:
        return done
    checkpoint = _load_checkpoint(out_dir / CHECKPOINT_DIR, fingerprint) if resume else None
    return _train(records=records, encoded=encoded, out_dir=out_dir, base_gguf=base_gguf, base_sha=base_sha,
                  fingerprint=fingerprint, settings=settings, checkpoint=checkpoint,
                  checkpoint_every=checkpoint_every, threads=threads, progress=progress)


def _train(*, records: Sequence[TrainRecord], encoded: list[Encoded], out_dir: Path, base_gguf: Path,
           base_sha: str, fingerprint: str, settings: dict[str, Any], checkpoint: dict[str, Any] | None,
           checkpoint_every: int, threads: int | None, progress: Callable[[StepReport], None] | None) -> TrainResult:
    import torch
    from peft import LoraConfig, get_peft_model, get_peft_model_state_dict, set_peft_model_state_dict

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads or max(1, os.cpu_count() or 1))
    try:
        base = load_base_model(base_gguf, base_sha)
        torch.manual_seed(settings["seed"])  # the LoRA's initial A matrices
        config = LoraConfig(r=settings["rank"], lora_alpha=settings["alpha"], lora_dropout=settings["dropout"],
                            target_modules=list(TARGET_MODULES), bias="none")
        with warnings.catch_warnings():  # peft calls a transformers property deprecated in v5
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
            model = get_peft_model(base, config)
        params = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=settings["lr"], weight_decay=0.0)
        total = settings["steps"]
        order = _data_order(len(encoded), total, settings["seed"])
        losses: list[float] = []
        step, seconds = 0, 0.0
        if checkpoint is not None:
            set_peft_model_state_dict(model, checkpoint["lora"])
            optimizer.load_state_dict(checkpoint["optimizer"])
            order, losses = checkpoint["order"], list(checkpoint["losses"])
            step, seconds = checkpoint["step"], checkpoint["seconds"]
        resumed_from = step

        def save() -> None:
            _save_checkpoint(out_dir / CHECKPOINT_DIR, {
                "fingerprint": fingerprint, "step": step, "order": order, "losses": losses, "seconds": seconds,
                "lora": get_peft_model_state_dict(model), "optimizer": optimizer.state_dict()})

        model.train()
        body = model.get_base_model()
        try:
            while step < total:
                item = encoded[order[step]]
                started = time.perf_counter()
                ids = torch.tensor([item.ids], dtype=torch.long)
                loss = completion_loss(body, ids, item.n_prompt)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, settings["max_grad_norm"])
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                elapsed = time.perf_counter() - started
                step, seconds = step + 1, seconds + elapsed
                losses.append(float(loss.item()))
                if step % checkpoint_every == 0 and step < total:
                    save()
                if progress is not None:
                    progress(StepReport(step=step, total_steps=total, epoch=(step - 1) // len(encoded),
                                        loss=losses[-1], seconds=elapsed, tokens=len(item.ids)))
        except KeyboardInterrupt:
            save()
            logger.info("interrupted at step %d of %d; checkpoint saved in %s", step, total, out_dir / CHECKPOINT_DIR)
            raise
        adapter = write_adapter_gguf(get_peft_model_state_dict(model), out_dir / ADAPTER_FILE,
                                     alpha=settings["alpha"], base_sha256=base_sha,
                                     n_blocks=base.config.num_hidden_layers)
        result = TrainResult(
            adapter_path=adapter, sha256=adapter_sha256(adapter), base_sha256=base_sha, losses=losses, steps=step,
            resumed_from=resumed_from, seconds=round(seconds, 3), n_records=len(records),
            n_tokens=sum(len(e.ids) for e in encoded),
            n_completion_tokens=sum(len(e.ids) - e.n_prompt for e in encoded), peak_rss_mb=round(_peak_rss_mb(), 1))
        _write_result(out_dir, fingerprint, result)
        shutil.rmtree(out_dir / CHECKPOINT_DIR, ignore_errors=True)
        return result
    finally:
        torch.set_num_threads(previous_threads)
        gc.collect()
