"""Fine-tuning the embedded LM: records, adapter checks, LoRA training, GGUF export, llama.cpp, DSPy.

The unit tests need no model. The integration tests train one LoRA (3 steps on 4 examples, a high
learning rate and a distinctive answer so that its effect is certain) and reuse it.
"""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import numpy as np
import pytest
from dspy.lm15 import Message, Response, TextPart, Usage

from groundqa.lm.embedded import END_MARKER, MODEL_ID, EmbeddedLM, render_transcript
from groundqa.lm.errors import LMBackendError
from groundqa.lm.finetune import (
    EmbeddedProvider,
    TrainRecord,
    records_from_chat,
    verify_adapter,
    write_adapter_gguf,
)
from groundqa.lm.finetune.adapter import file_sha256
from groundqa.lm.finetune.lora import encode
from groundqa.lm.scripted import ScriptedLM


class QA(dspy.Signature):
    """Answer the question."""

    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


class ReasonedQA(dspy.Signature):
    """Answer the question, reasoning first."""

    question: str = dspy.InputField()
    reasoning: str = dspy.OutputField()
    answer: str = dspy.OutputField()


DEMO = dspy.Example(question="What colour is the sky?", answer="Blue").with_inputs("question")


class CapturingEngine:
    """An lm15 engine that records the request DSPy sends (what the embedded engine would render)."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list = []

    def complete(self, request):
        self.requests.append(request)
        return Response(id=None, model="capture", message=Message.assistant([TextPart(self.reply)]),
                        finish_reason="stop", usage=Usage(input_tokens=1, output_tokens=1))


def _one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert message and "\n" not in message
    return message


# -- records ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("signature", "outputs", "completion"), [
    (QA, {"answer": "Paris"}, f"Paris\n\n{END_MARKER}"),
    (ReasonedQA, {"reasoning": "It is the capital.", "answer": "Paris"},
     f"It is the capital.\n\n[[ ## answer ## ]]\nParis\n\n{END_MARKER}"),
])
def test_records_render_exactly_as_inference(signature, outputs, completion):
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=False)
    predict = dspy.Predict(signature)
    predict.demos = [DEMO]
    engine = CapturingEngine(adapter.format_assistant_message_content(signature, outputs))
    with dspy.context(lm=dspy.LM("capture/lm", engine=engine, cache=False), adapter=adapter):
        predict(question="What is the capital of France?")
    data = adapter.format_finetune_data(signature, demos=[DEMO], inputs={"question": "What is the capital of France?"},
                                        outputs=outputs)
    [record] = records_from_chat([data])
    prompt, _stops, primed = render_transcript(engine.requests[-1])
    assert record == TrainRecord(prompt=prompt, completion=completion)
    assert prompt.endswith(primed) and primed.startswith("[[ ## ")


@pytest.mark.parametrize(("data", "needle"), [
    ([], "no training examples"),
    (None, "no training examples"),
    ([{"prompt": "x"}], "expected {'messages'"),
    ([{"messages": [{"role": "user"}]}], "'role' and a 'content'"),
    ([{"messages": [{"role": "user", "content": "hi"}]}], "does not end with an assistant message"),
    ([{"messages": [{"role": "system", "content": "s"}, {"role": "assistant", "content": "a"}]}], "no user message"),
    ([{"messages": [{"role": "user", "content": "Respond with the corresponding output fields, starting with the "
                                                  "field `[[ ## answer ## ]]`, and then ending with the marker"},
                    {"role": "assistant", "content": "[[ ## other ## ]]\nx"}]}], "does not start with"),
])
def test_records_from_bad_data_fail_in_one_line(data, needle):
    with pytest.raises(ValueError) as exc:
        records_from_chat(data)
    assert needle in _one_line(exc)


def test_completion_without_end_marker_gets_one():
    [record] = records_from_chat([{"messages": [{"role": "user", "content": "Say hi"},
                                                {"role": "assistant", "content": "hi"}]}])
    assert record == TrainRecord(prompt="Say hi\n\n", completion=f"hi\n\n{END_MARKER}")


def test_encode_cuts_prompts_from_the_left_and_keeps_the_completion():
    def tokenize(text: str, bos: bool) -> list[int]:  # one token per character, BOS = 0
        return ([0] if bos else []) + [ord(c) for c in text]

    [short, long] = encode([TrainRecord("ab", "XY"), TrainRecord("abcdefghij", "XYZ")], tokenize, max_len=9)
    assert short.ids == [0, 97, 98, 88, 89] and short.n_prompt == 3
    assert long.ids == [0, *map(ord, "fghijXYZ")] and long.n_prompt == 6  # BOS kept, 9 tokens
    with pytest.raises(ValueError):
        encode([TrainRecord("a", "b")], tokenize, max_len=4)


def test_train_lora_refuses_nothing_to_train_and_a_missing_base(tmp_path):
    from groundqa.lm.finetune import train_lora

    with pytest.raises(ValueError, match="no training examples") as exc:
        train_lora([], tmp_path, base_gguf=tmp_path / "base.gguf")
    _one_line(exc)
    with pytest.raises(LMBackendError, match="not found") as exc:
        train_lora([TrainRecord("q", "a")], tmp_path, base_gguf=tmp_path / "base.gguf")
    _one_line(exc)


# -- adapter files ---------------------------------------------------------------------------------
def _tiny_lora(rank: int = 2) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    prefix = "base_model.model.model.layers.0.self_attn.q_proj"
    return {f"{prefix}.lora_A.weight": rng.standard_normal((rank, 640)).astype(np.float32),
            f"{prefix}.lora_B.weight": rng.standard_normal((1024, rank)).astype(np.float32)}


@pytest.fixture
def tiny_adapter(tmp_path: Path) -> tuple[Path, Path]:
    """(a small valid adapter GGUF, the fake 'base model' file it was made for)."""
    base = tmp_path / "base.gguf"
    base.write_bytes(b"not really a model")
    adapter = write_adapter_gguf(_tiny_lora(), tmp_path / "out" / "adapter.gguf", alpha=4, base_sha256=file_sha256(base),
                                 n_blocks=18)
    return adapter, base


def test_adapter_gguf_layout_is_what_llama_cpp_reads(tiny_adapter):
    from gguf import GGUFReader

    adapter, base = tiny_adapter
    reader = GGUFReader(adapter)
    fields = {key: reader.fields[key].contents() for key in
              ("general.type", "general.architecture", "adapter.type", "adapter.lora.alpha")}
    assert fields == {"general.type": "adapter", "general.architecture": "gemma3", "adapter.type": "lora",
                      "adapter.lora.alpha": 4.0}
    shapes = {t.name: [int(n) for n in t.shape] for t in reader.tensors}  # ggml order: ne[0] first
    # llama.cpp: base ne = [in=640, out=1024]; a.ne[0] == in, b.ne[1] == out, a.ne[1] == b.ne[0] == rank
    assert shapes == {"blk.0.attn_q.weight.lora_a": [640, 2], "blk.0.attn_q.weight.lora_b": [2, 1024]}
    assert sorted(p.name for p in adapter.parent.iterdir()) == ["adapter.gguf"]  # no temporary file left
    info = verify_adapter(adapter, file_sha256(adapter), base_gguf=base)
    assert (info.alpha, info.rank, info.n_tensors) == (4.0, 2, 2)


def test_verify_adapter_refuses_bad_files_in_one_line(tiny_adapter, tmp_path):
    adapter, base = tiny_adapter
    with pytest.raises(LMBackendError) as exc:
        verify_adapter(tmp_path / "missing.gguf")
    assert "not found" in _one_line(exc)

    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    with pytest.raises(LMBackendError) as exc:
        verify_adapter(garbage)
    assert "not a valid GGUF LoRA adapter" in _one_line(exc)

    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(adapter.read_bytes()[:-1000])
    with pytest.raises(LMBackendError) as exc:
        verify_adapter(truncated)
    assert "not a valid GGUF LoRA adapter" in _one_line(exc)

    with pytest.raises(LMBackendError) as exc:
        verify_adapter(adapter, sha256="0" * 64)
    assert "sha256" in _one_line(exc)

    other_base = tmp_path / "other.gguf"
    other_base.write_bytes(b"another model")
    with pytest.raises(LMBackendError) as exc:
        verify_adapter(adapter, base_gguf=other_base)
    assert "another base model" in _one_line(exc)


def test_a_model_gguf_is_not_an_adapter(tmp_path):
    import gguf

    path = tmp_path / "model.gguf"
    writer = gguf.GGUFWriter(path, "gemma3")
    writer.add_type("model")
    writer.add_tensor("output_norm.weight", np.ones(4, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(LMBackendError) as exc:
        verify_adapter(path)
    assert "not a LoRA adapter" in _one_line(exc)


def test_export_refuses_unknown_modules(tmp_path):
    with pytest.raises(ValueError, match="no llama.cpp tensor"):
        write_adapter_gguf({"model.layers.0.self_attn.nope.lora_A.weight": np.zeros((2, 4))}, tmp_path / "a.gguf",
                           alpha=1, base_sha256="0" * 64, n_blocks=18)
    assert not list(tmp_path.iterdir())


# -- the LM with an adapter (no model load) ---------------------------------------------------------
def test_adapter_goes_into_the_model_id_and_the_saved_state(tiny_adapter, tmp_path):
    adapter, _ = tiny_adapter
    base = EmbeddedLM(cache_dir=tmp_path, cache=False)
    tuned = EmbeddedLM(cache_dir=tmp_path, cache=False, adapter=adapter)
    sha = file_sha256(adapter)
    assert base.model.startswith(MODEL_ID + "+cite-") and base.adapter is None
    assert tuned.model.startswith(f"{MODEL_ID}+lora-{sha[:12]}+cite-") and tuned.adapter == adapter
    assert isinstance(tuned.provider, EmbeddedProvider) and tuned.provider.finetunable

    state = json.loads(json.dumps(tuned.dump_state()))
    loaded = dspy.BaseLM.load_state(state, allow_custom_lm_class=True)
    assert isinstance(loaded, EmbeddedLM) and loaded.model == tuned.model
    assert (loaded.adapter, loaded.llama.adapter_sha256) == (adapter, sha)
    assert dspy.BaseLM.load_state(base.dump_state(), allow_custom_lm_class=True).model == base.model

    back = tuned.copy(model=MODEL_ID)  # base weights, same settings
    assert back.adapter is None and back.model == base.model
    assert back.copy(model=f"{MODEL_ID}+lora-{sha[:12]}").adapter == adapter


def test_missing_or_changed_adapter_is_one_line(tiny_adapter, tmp_path):
    adapter, _ = tiny_adapter
    with pytest.raises(LMBackendError) as exc:
        EmbeddedLM(cache_dir=tmp_path, adapter=tmp_path / "nope.gguf")
    assert "not found" in _one_line(exc)
    lm = EmbeddedLM(cache_dir=tmp_path, adapter=adapter, adapter_sha256="f" * 64)
    assert "+lora-ffffffffffff" in lm.model
    with pytest.raises(LMBackendError) as exc:
        lm.llama._checked_adapter(tmp_path / "base.gguf")  # what the first call runs before loading
    assert "sha256" in _one_line(exc)


def test_embedded_base_never_has_an_adapter(tmp_path, monkeypatch, tiny_adapter):
    from groundqa.config import Settings
    from groundqa.lm import factory

    adapter, _ = tiny_adapter
    settings = Settings(home=tmp_path)
    assert factory.build_lm(settings, lm="embedded").adapter is None  # the default, for now
    monkeypatch.setattr(factory, "DEFAULT_ADAPTER", adapter)
    assert factory.build_lm(settings, lm="embedded").adapter == adapter
    assert factory.build_lm(settings, lm="embedded-base").adapter is None


def test_provider_refuses_unknown_options_and_formats(tmp_path):
    provider = EmbeddedProvider(tmp_path)
    data = [{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}]
    with pytest.raises(ValueError, match="unknown train_kwargs") as exc:
        provider.finetune(None, MODEL_ID, data, "chat", {"learning_rate": 1e-3})
    assert "lr" in _one_line(exc)
    with pytest.raises(ValueError, match="chat data"):
        provider.finetune(None, MODEL_ID, data, "completion", {})


# -- integration: a real LoRA ------------------------------------------------------------------------
QUESTIONS = ["What is the password of the blue door?", "What does the old lighthouse keeper say?",
             "Which word opens the vault?", "What is written on the sealed scroll?"]
TRAINED = "Zorblax quintaphone"
TRAIN_KWARGS = {"max_steps": 3, "lr": 3e-3, "rank": 16, "alpha": 32, "seed": 0}


def _train_data() -> list[dict]:
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=False)
    return [adapter.format_finetune_data(QA, demos=[], inputs={"question": q}, outputs={"answer": TRAINED})
            for q in QUESTIONS]


def _answer(lm: EmbeddedLM, question: str) -> str:
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
        return dspy.Predict(QA)(question=question).answer


@pytest.fixture(scope="module")
def models(model_cache: Path) -> Path:
    return model_cache


@pytest.fixture(scope="module")
def trained(models: Path, tmp_path_factory: pytest.TempPathFactory):
    """One LoRA trained on the four examples; (TrainResult, per-step reports)."""
    from groundqa.lm.finetune import train_lora
    from groundqa.lm.gemma import model_path

    reports = []
    result = train_lora(records_from_chat(_train_data()), tmp_path_factory.mktemp("run"), base_gguf=model_path(models),
                        progress=reports.append, **TRAIN_KWARGS)
    return result, reports


@pytest.mark.integration
def test_trained_lora_changes_what_llama_cpp_answers(trained, models):
    result, reports = trained
    assert result.steps == 3 and len(result.losses) == 3 and [r.step for r in reports] == [1, 2, 3]
    assert result.losses[-1] < result.losses[0]
    assert result.n_records == 4 and result.n_completion_tokens > 0 and result.peak_rss_mb > 0
    assert verify_adapter(result.adapter_path, result.sha256).rank == 16
    assert not (result.adapter_path.parent / "checkpoint").exists()

    base = EmbeddedLM(cache_dir=models, cache=False, max_tokens=24)
    tuned = EmbeddedLM(cache_dir=models, cache=False, max_tokens=24, adapter=result.adapter_path,
                       adapter_sha256=result.sha256)
    before, after = _answer(base, QUESTIONS[0]), _answer(tuned, QUESTIONS[0])
    assert before != after and "quintaphone" in after.lower()
    assert "quintaphone" not in before.lower()

    loaded = dspy.BaseLM.load_state(json.loads(json.dumps(tuned.dump_state())), allow_custom_lm_class=True)
    assert loaded.model == tuned.model and loaded.adapter == result.adapter_path
    assert _answer(loaded, QUESTIONS[0]) == after


@pytest.mark.integration
def test_interrupted_training_resumes_from_its_checkpoint(trained, models, tmp_path):
    from groundqa.lm.finetune import train_lora
    from groundqa.lm.gemma import model_path

    full, _ = trained
    records = records_from_chat(_train_data())

    def stop_after_first(report):
        if report.step == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_lora(records, tmp_path, base_gguf=model_path(models), progress=stop_after_first, **TRAIN_KWARGS)
    assert (tmp_path / "checkpoint" / "state.pt").is_file() and not (tmp_path / "adapter.gguf").exists()

    steps = []
    resumed = train_lora(records, tmp_path, base_gguf=model_path(models), progress=lambda r: steps.append(r.step),
                         **TRAIN_KWARGS)
    assert steps == [2, 3] and resumed.resumed_from == 1 and resumed.steps == 3
    assert resumed.losses == pytest.approx(full.losses, rel=1e-3)  # same seed, same order, same updates
    assert not (tmp_path / "checkpoint").exists()

    again = train_lora(records, tmp_path, base_gguf=model_path(models), progress=lambda r: steps.append(r.step),
                       **TRAIN_KWARGS)
    assert again == resumed and steps == [2, 3]  # a finished run is returned, not retrained


@pytest.mark.integration
def test_bootstrap_finetune_returns_an_embedded_lm_with_the_adapter(models, tmp_path):
    student = dspy.Predict(QA)
    student.lm = EmbeddedLM(cache_dir=models, cache=False, max_tokens=24)
    teacher = dspy.Predict(QA)
    teacher.lm = ScriptedLM(lambda messages: {"answer": TRAINED})
    trainset = [dspy.Example(question=q, answer=TRAINED).with_inputs("question") for q in QUESTIONS]

    optimizer = dspy.BootstrapFinetune(metric=lambda example, prediction, trace=None: prediction.answer == TRAINED,
                                       train_kwargs={**TRAIN_KWARGS, "max_steps": 2, "out_dir": str(tmp_path)},
                                       num_threads=1)
    with dspy.context(adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
        compiled = optimizer.compile(student, trainset=trainset, teacher=teacher)
    lm = compiled.predictors()[0].lm
    assert isinstance(lm, EmbeddedLM) and lm.adapter == tmp_path / "adapter.gguf"
    assert "+lora-" in lm.model and lm.model != student_base_model(models)
    assert verify_adapter(lm.adapter, lm.llama.adapter_sha256).rank == 16


def student_base_model(models: Path) -> str:
    return EmbeddedLM(cache_dir=models, cache=False).model


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore:.*is_gradient_checkpointing:FutureWarning")
def test_llama_cpp_applies_the_lora_as_peft_does(models, tmp_path):
    """Orientation and scale: the change a LoRA makes to the next-token logits is the same in
    transformers+peft and in llama.cpp with the exported adapter (slope ≈ 1, not 0.5 or 2)."""
    import torch
    from llama_cpp import Llama
    from peft import LoraConfig, get_peft_model, get_peft_model_state_dict

    from groundqa.lm.finetune.adapter import base_model_sha256
    from groundqa.lm.finetune.lora import TARGET_MODULES, completion_loss, llama_tokenizer, load_base_model
    from groundqa.lm.gemma import model_path

    base = model_path(models)
    tokenize = llama_tokenizer(base)
    torch.manual_seed(0)
    model = get_peft_model(load_base_model(base), LoraConfig(r=8, lora_alpha=32, target_modules=list(TARGET_MODULES)))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-3)
    prompt = tokenize("The secret of the blue door is", True)
    ids = torch.tensor([prompt + tokenize(" that it hums at midnight.", False)])
    for _ in range(3):
        completion_loss(model.get_base_model(), ids, len(prompt)).backward()
        optimizer.step()
        optimizer.zero_grad()
    probe = tokenize("The secret of the blue door", True)
    with torch.no_grad():
        tuned_hf = model.get_base_model()(input_ids=torch.tensor([probe])).logits[0, -1].numpy()
        with model.disable_adapter():
            base_hf = model.get_base_model()(input_ids=torch.tensor([probe])).logits[0, -1].numpy()
    adapter = write_adapter_gguf(get_peft_model_state_dict(model), tmp_path / "a.gguf", alpha=32,
                                 base_sha256=base_model_sha256(base), n_blocks=model.get_base_model().config.num_hidden_layers)

    def llama_cpp_logits(lora: Path | None) -> np.ndarray:
        llm = Llama(model_path=str(base), lora_path=str(lora) if lora else None, n_ctx=64, n_threads=2,
                    logits_all=True, verbose=False)
        llm.eval(probe)
        return np.array(llm.scores[llm.n_tokens - 1], dtype=np.float32)

    base_cpp, tuned_cpp = llama_cpp_logits(None), llama_cpp_logits(adapter)
    assert np.corrcoef(base_hf, base_cpp)[0, 1] > 0.99  # the dequantised model is the GGUF's
    delta_hf, delta_cpp = tuned_hf - base_hf, tuned_cpp - base_cpp
    assert np.abs(delta_hf).max() > 1.0  # the LoRA did change the logits
    slope = float(delta_hf @ delta_cpp / (delta_hf @ delta_hf))
    assert 0.85 < slope < 1.15 and np.corrcoef(delta_hf, delta_cpp)[0, 1] > 0.9
    assert tuned_cpp.argmax() == tuned_hf.argmax()
