"""``--optimizer finetune`` end to end on the real embedded LM: the program's own cited-answer prompts with
gold-label targets, a 2-step LoRA, the adapter saved with the program (pinned by sha256), the program loaded
back with the adapter, and the bad inputs (empty trainset, no successful trace, a damaged adapter)."""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pytest

from groundqa.app import build_program, program_settings
from groundqa.compile import CompileOptions, compile_program
from groundqa.config import Settings
from groundqa.datasets.loaders import Document
from groundqa.lm.factory import build_lm
from groundqa.lm.finetune import adapter_sha256
from groundqa.optimizers.finetune import FinetuneEmbedded, FinetuneError, read_chat_data
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.persistence import ProgramFileError
from groundqa.programs.retriever import Retriever
from groundqa.store.chroma_store import CorpusStore

LM_FIRST = {"extractive_first": 1.0}  # the LM is asked first: these tests exercise its path


def _settings(tmp_path: Path, model_cache: Path) -> Settings:
    home = tmp_path / "home"
    (home / "cache").mkdir(parents=True)
    (home / "cache" / "models").symlink_to(model_cache, target_is_directory=True)  # the session's model cache
    return Settings(home=home, lm="embedded", cache=False)


@pytest.mark.integration
def test_finetune_compiles_saves_and_loads_a_program_with_its_adapter(tmp_path: Path, model_cache: Path):
    settings = _settings(tmp_path, model_cache)
    options = CompileOptions(optimizer="finetune", dataset="bundled", max_train=10, max_dev=2, finetune_steps=2,
                             finetune_lr=1e-3, mlflow=False, artifacts=tmp_path / "artifacts", progress=False)
    lines: list[str] = []
    outcome = compile_program(settings, options, out=lines.append)

    folder = outcome.program_path.parent
    record = json.loads(outcome.program_path.read_text(encoding="utf-8"))["groundqa"]["adapter"]
    assert record == {"file": "adapter.gguf", "sha256": adapter_sha256(folder / "adapter.gguf")}
    report = json.loads((folder / "finetune.json").read_text(encoding="utf-8"))
    assert report["steps"] == 2 and len(report["losses"]) == 2 and report["records"] >= 1
    assert report["adapter_sha256"] == record["sha256"] and (folder / "finetune_loss.png").stat().st_size > 0
    assert any("training a LoRA" in line for line in lines)

    # loaded back: the app runs the embedded LM with the program's adapter (and only the embedded LM)
    run = program_settings(settings, outcome.program_path)
    assert run.adapter == folder / "adapter.gguf"
    assert f"+lora-{record['sha256'][:12]}" in build_lm(run).model
    assert program_settings(settings.model_copy(update={"lm": "embedded-base"}), outcome.program_path).adapter is None
    program = build_program(run, program_path=outcome.program_path)
    assert program.adapter.sha256 == record["sha256"]
    # the tuned LM is asked where no passage sentence answers; the base model is not
    assert program.config.generate_unanswered and not build_program(settings).config.generate_unanswered

    # a damaged adapter is one clear line, before any LM loads it
    (folder / "adapter.gguf").write_bytes(b"not an adapter")
    with pytest.raises(ProgramFileError, match="sha256"):
        program_settings(settings, outcome.program_path)
    (folder / "adapter.gguf").unlink()
    with pytest.raises(ProgramFileError, match="missing"):
        program_settings(settings, outcome.program_path)


def _refusing_program(tmp_path: Path) -> GroundedQA:
    store = CorpusStore(tmp_path / "chroma", collection="finetune")
    store.ingest([Document(id="kestrel", title="Mount Kestrel", text="Mount Kestrel rises to 3,412 metres. "
                                                                     "Its first ascent was in 1871.")])
    return GroundedQA(Retriever(store, k=2), QAConfig.for_lm("embedded", **LM_FIRST))


def test_an_empty_trainset_or_one_without_a_successful_trace_is_one_clear_error(tmp_path: Path):
    optimizer = FinetuneEmbedded(tmp_path / "models", progress=False, say=lambda _: None)
    with pytest.raises(FinetuneError, match="empty"):
        optimizer.compile(_refusing_program(tmp_path), trainset=[])
    # every question is refused before the LM is asked (its premises name nothing in the corpus)
    refused = [dspy.Example(question=f"Who founded the {name} Institute?", answers=["x"], should_abstain=True,
                            type="false_premise").with_inputs("question") for name in ("Zorbulak", "Quixmoor")]
    with pytest.raises(FinetuneError, match="no successful trace"):
        optimizer.compile(_refusing_program(tmp_path / "b"), trainset=refused)
    assert not (tmp_path / "models" / "adapters").exists()  # nothing half-written


def test_extra_training_data_is_checked_line_by_line(tmp_path: Path):
    path = tmp_path / "data.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}\n'
                    "not json\n", encoding="utf-8")
    with pytest.raises(FinetuneError, match=r"data.jsonl:2 is not JSON"):
        read_chat_data(path)
    path.write_text('{"prompt": "q"}\n', encoding="utf-8")
    with pytest.raises(FinetuneError, match="not a chat example"):
        read_chat_data(path)


def test_refusals_are_capped_to_a_share_of_the_examples():
    """A short, identical target is learnt far faster than cited sentences (a 48% share made an adapter that
    refused everything), so refusals are capped; the choice is seeded and answers are never dropped."""
    from groundqa.optimizers.finetune_data import cap_chat_refusals, is_refusal

    def example(answer: str) -> dict:
        return {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": answer}]}

    chat = [example("It is 31 metres tall [1].") for _ in range(8)] + [example("NOT IN SOURCES") for _ in range(8)]
    capped = cap_chat_refusals(chat, 0.2, seed=0)
    assert sum(map(is_refusal, capped)) == 2 and len(capped) == 10
    assert capped == cap_chat_refusals(chat, 0.2, seed=0) and cap_chat_refusals(chat, None, 0) == chat
