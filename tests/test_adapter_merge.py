"""The answer judge's adapter merged into a copy of the embedded model: same judgments, written once, never half."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundqa.judges import answer_judge
from groundqa.judges.answer_judge import SHIPPED, SHIPPED_SHA256, judge_prompt
from groundqa.lm.errors import LMBackendError
from groundqa.lm.finetune import merge
from groundqa.lm.finetune.adapter import AdapterInfo, verify_adapter
from groundqa.lm.finetune.merge import MERGED_FROM_KEY, merged_model, merged_path

QUESTION = "When did the Lettice Colliery open?"
SENTENCES = [("", "The Lettice Colliery opened in 1871."),
             ("The Lettice Colliery opened in 1871.", "Its winding engine was built in Leeds."),
             ("Its winding engine was built in Leeds.", "In 1909 the rescue brigade brought out forty-one survivors.")]


def _info(tmp_path: Path) -> AdapterInfo:
    adapter = tmp_path / "adapter.gguf"
    adapter.write_bytes(b"not read by a scripted merge")
    return AdapterInfo(path=adapter, sha256="ab" * 32, alpha=32.0, rank=16, base_sha256=None, n_tensors=2)


def test_a_copy_is_written_once_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[Path] = []
    monkeypatch.setattr(merge, "_write_merged", lambda base, info, out: writes.append(out) or out.write_bytes(b"w"))
    base = tmp_path / "base.gguf"
    first = merged_model(base, _info(tmp_path), tmp_path / "merged", quiet=True)
    again = merged_model(base, _info(tmp_path), tmp_path / "merged", quiet=True)
    assert first == again == merged_path(base, _info(tmp_path), tmp_path / "merged") and len(writes) == 1
    assert first.read_bytes() == b"w" and sorted(p.name for p in first.parent.iterdir()) == [
        first.name, first.name + ".sha256"]  # no temporary file left


@pytest.mark.parametrize("damage", ["bytes changed", "record missing", "copy missing"])
def test_a_damaged_or_interrupted_copy_is_written_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       damage: str) -> None:
    writes: list[Path] = []
    monkeypatch.setattr(merge, "_write_merged", lambda base, info, out: writes.append(out) or out.write_bytes(b"w"))
    target = merged_model(tmp_path / "base.gguf", _info(tmp_path), tmp_path, quiet=True)
    if damage == "bytes changed":
        target.write_bytes(b"x")
    elif damage == "record missing":  # stopped between the rename and the record: the copy is not trusted
        target.with_name(target.name + ".sha256").unlink()
    else:
        target.unlink()
    assert merged_model(tmp_path / "base.gguf", _info(tmp_path), tmp_path, quiet=True).read_bytes() == b"w"
    assert len(writes) == 2


def test_a_failed_write_is_one_line_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(base: Path, info: AdapterInfo, out: Path) -> None:
        out.write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(merge, "_write_merged", disk_full)
    with pytest.raises(LMBackendError, match="cannot write the merged answer-judge model .*No space left"):
        merged_model(tmp_path / "base.gguf", _info(tmp_path), tmp_path / "merged", quiet=True)
    assert list((tmp_path / "merged").iterdir()) == []


def test_an_adapter_for_tensors_the_model_lacks_is_refused(tmp_path: Path) -> None:
    import numpy as np
    from gguf import GGUFWriter

    from groundqa.config import Settings
    from groundqa.lm.gemma import model_path

    adapter = tmp_path / "foreign.gguf"
    writer = GGUFWriter(adapter, arch="gemma3")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", 16.0)
    writer.add_tensor("blk.99.attn_q.weight.lora_a", np.zeros((16, 640), dtype=np.float32))
    writer.add_tensor("blk.99.attn_q.weight.lora_b", np.zeros((1024, 16), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    base = model_path(Settings().cache_dir)
    with pytest.raises(LMBackendError, match="adapts tensors the base model .* lacks .*blk.99.attn_q.weight"):
        merged_model(base, verify_adapter(adapter), tmp_path / "merged", quiet=True)
    assert list((tmp_path / "merged").iterdir()) == []


def test_the_merged_judge_judges_as_the_adapter_applied_at_run_time() -> None:
    """The real embedded model and the shipped adapter: the merged copy's margins are the run-time adapter's within
    0.5 logit (about 0.1 apart on average), far from the bare model's, and cached apart from them."""
    from gguf import GGUFReader

    from groundqa.config import Settings
    from groundqa.lm.gemma import model_path

    base = model_path(Settings().cache_dir)
    info = verify_adapter(SHIPPED, SHIPPED_SHA256, base)
    copy = merged_model(base, info, Settings().cache_dir / "merged")
    assert str(GGUFReader(copy).fields[MERGED_FROM_KEY].contents()).endswith("+" + SHIPPED_SHA256)

    answer_judge.shared_answer_judge()  # the default: the program's judge runs the merged copy, and says so
    assert "answer-judge.gguf merged, q8_0-v1" in answer_judge.loaded_judges()
    merged = answer_judge.AnswerJudge(SHIPPED, base, merged=copy)
    applied = answer_judge.AnswerJudge(SHIPPED, base)
    assert merged.identity != applied.identity and "merged" in merged.identity
    bare = answer_judge.AnswerJudge(None, base)
    for before, sentence in SENTENCES:
        tuned = applied.margin("Lettice Colliery", before, sentence, QUESTION)
        assert merged.margin("Lettice Colliery", before, sentence, QUESTION) == pytest.approx(tuned, abs=0.5)
        prompt = judge_prompt("Lettice Colliery", before, sentence, QUESTION)
        assert merged.evaluate(prompt) == pytest.approx(merged.margin("Lettice Colliery", before, sentence, QUESTION),
                                                        abs=1e-4)  # the cached margin is the model's, rounded
        assert abs(bare.evaluate(prompt) - tuned) > 1.0  # the adapter's effect survived the merge
