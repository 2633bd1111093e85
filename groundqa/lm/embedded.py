"""The embedded default LM: Gemma 3 270M (GGUF, base model) in process through llama.cpp.

Gemma 3 270M is a *base* model: through its chat template it answers with empty text. The engine
therefore renders DSPy's messages as one plain-completion transcript, primes the first output field
named in the instructions, stops at the adapter's end marker (and at any input-field marker, so the
model cannot invent the next example), and reports token usage. Signatures with several output fields
(``dspy.ChainOfThought``: ``reasoning`` then ``answer``) are decoded field by field: each field is
primed with its marker and gets its share of ``max_tokens``, so a base model that never writes the
next marker by itself still returns every field the adapter expects. It plugs into DSPy 3.4 as a custom
engine of ``dspy.LM``, so DSPy's cache, history, callbacks and usage tracking apply unchanged.

Cited answers: for a prompt that asks for an ``answer`` from numbered ``passages`` (groundqa's
CitedAnswer), decoding is constrained (``cite_grammar=True``) to ``NOT IN SOURCES`` or one sentence
ending with citations of listed passages. The default decoder is :class:`~groundqa.lm.citation_decoding.RegexConstraint`
(likeliest tokens checked first, ~4× faster than llama.cpp's GBNF sampler on Gemma's 262k vocabulary);
``cite_decoder="gbnf"`` selects the GBNF grammar instead. A 270M base model cannot
follow the citation format from instructions alone; the grammar guarantees the form, the contracts
still check the content.

Determinism: temperature 0 is greedy and reproducible. With temperature > 0 the sampling seed comes
from the call's ``rollout_id`` (or a fresh random seed when none is given). At temperature 0 the seed
has no effect, which is why contract retries change the prompt (feedback), not only the rollout id.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import os
import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage

from groundqa.lm.citation_decoding import RegexConstraint, citation_pattern
from groundqa.lm.errors import LMBackendError
from groundqa.lm.gemma import END_MARKER, FIELD_MARKER, FIRST_FIELD, MODEL_ID, model_path, render_chat
from groundqa.lm.token_sink import TOKEN_SINK

_OUTPUT_SPEC = re.compile(r"starting with the field (.*?), and then ending with the marker", re.S)
DECODING_VERSION = "fields-1"  # part of the model id: outputs decoded otherwise never share a cache entry
MIN_FIELD_TOKENS = 32
_ROLLOUT: contextvars.ContextVar[Any] = contextvars.ContextVar("groundqa_rollout_id", default=None)


_PASSAGES_FIELD = re.compile(r"\[\[ ## passages ## \]\]\n(.*?)(?=\n\n\[\[ ## |\Z)", re.S)


def citation_grammar(n_passages: int) -> str:
    """GBNF for a cited answer: ``NOT IN SOURCES`` or one sentence ending with one or two citations
    ``[k]`` where ``k`` names one of the ``n_passages`` passages (a 270M model's second sentence is
    almost always filler, measured on the bundled dev split)."""
    numbers = " | ".join(f'"{k}"' for k in range(1, max(1, n_passages) + 1))
    return (
        'root ::= answer "\\n\\n[[ ## completed ## ]]"\n'
        'answer ::= "NOT IN SOURCES" | sentence\n'
        'sentence ::= [A-Z0-9"] body{2,240} [.?!] cites\n'
        'body ::= [^\\[\\]\\n.?!] | "." [0-9]\n'
        'cites ::= " [" num "]" ("[" num "]")?\n'
        f"num ::= {numbers}\n"
    )


def _grammar_version(decoder: str = "regex") -> str:
    """A short hash of the citation constraint: part of the model id, so DSPy's cache never serves
    answers generated under another constraint or decoding scheme."""
    spec = citation_pattern(3) if decoder == "regex" else citation_grammar(3)
    return hashlib.sha256((spec + DECODING_VERSION).encode()).hexdigest()[:8]


def output_fields(last_user: str) -> list[str]:
    """The output fields a ChatAdapter prompt asks for, in order (empty when it names none)."""
    spec = _OUTPUT_SPEC.search(last_user)
    if spec:
        return list(dict.fromkeys(FIELD_MARKER.findall(spec.group(1))))
    first = FIRST_FIELD.search(last_user)
    return [first.group(1)] if first else []


def field_budget(remaining: int, fields_left: int) -> int:
    """Tokens for the next field when ``fields_left`` fields (this one included) share ``remaining``.

    Every field but the last gets an equal share (at least :data:`MIN_FIELD_TOKENS`); the last field
    gets whatever is left."""
    if fields_left <= 1:
        return max(1, remaining)
    return max(1, min(remaining, max(MIN_FIELD_TOKENS, remaining // fields_left)))


def cited_answer_passages(last_user: str, first_field: str | None) -> int:
    """How many numbered passages a cited-answer prompt carries (0 when it is not one)."""
    if first_field != "answer":
        return 0
    match = _PASSAGES_FIELD.search(last_user)
    return len(re.findall(r"^\[(\d+)\]", match.group(1), re.M)) if match else 0


def render_transcript(request: Any) -> tuple[str, list[str], str]:
    """Flatten a chat request to (prompt, stop strings, primed prefix) for plain completion."""
    system = request.system or ""
    if not isinstance(system, str):
        system = "".join(getattr(p, "text", "") for p in system)
    return render_chat(system, [(m.role, m.text or "") for m in request.messages])


class LlamaCppEngine:
    """A DSPy 3.4 engine (``complete(Request) -> Response``) over ``llama_cpp.Llama``.

    One model per engine, loaded lazily; calls are serialised with a lock (llama.cpp contexts are
    not thread-safe), so the engine is safe to call from several threads.

    ``adapter``: a LoRA adapter GGUF (``groundqa.lm.finetune``) applied on top of the base model. It is
    checked at first load (exists, is a LoRA GGUF, has ``adapter_sha256``, was made for this base) and
    its sha256 is part of the LM's model id, so DSPy's cache never mixes base and tuned outputs.
    ``adapter_sha256`` defaults to the file's sha256 when the engine is created.
    """

    def __init__(
        self,
        cache_dir: str | Path,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        reuse_prefix: bool = True,
        gguf_path: str | Path | None = None,
        cite_grammar: bool = True,
        cite_decoder: str = "regex",
        adapter: str | Path | None = None,
        adapter_sha256: str | None = None,
    ) -> None:
        if cite_decoder not in ("regex", "gbnf"):
            raise ValueError(f"cite_decoder must be 'regex' or 'gbnf', not {cite_decoder!r}")
        self.cache_dir = Path(cache_dir)
        self.cite_grammar = cite_grammar
        self.cite_decoder = cite_decoder
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self.reuse_prefix = reuse_prefix
        self.gguf_path = Path(gguf_path) if gguf_path else None
        self.adapter = Path(adapter) if adapter else None
        self.adapter_sha256 = None
        if self.adapter is not None:
            from groundqa.lm.finetune.adapter import adapter_sha256 as file_sha256

            self.adapter_sha256 = (adapter_sha256 or file_sha256(self.adapter)).lower()
        self._llm: Any = None
        self._lock = threading.Lock()
        self.stats = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}

    # -- lifecycle -------------------------------------------------------------------------
    def _model(self) -> Any:
        if self._llm is None:
            from llama_cpp import Llama

            path = self.gguf_path or model_path(self.cache_dir)
            lora = self._checked_adapter(path)
            try:
                self._llm = Llama(
                    model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads, n_batch=512,
                    verbose=False, seed=0, lora_path=lora,
                )
            except (RuntimeError, ValueError) as exc:
                if lora is None:
                    raise
                raise LMBackendError(f"llama.cpp cannot apply the LoRA adapter {lora}: {exc}") from exc
        return self._llm

    def _checked_adapter(self, base: Path) -> str | None:
        """The adapter path for llama.cpp after :func:`verify_adapter`, or None without one."""
        if self.adapter is None:
            return None
        from groundqa.lm.finetune.adapter import verify_adapter

        verify_adapter(self.adapter, self.adapter_sha256, base_gguf=base)
        _quiet_lora_buffer_warnings()
        return str(self.adapter)

    @property
    def weights_id(self) -> str:
        """The weights this engine runs: the base model id, plus ``+lora-<sha12>`` with an adapter."""
        return MODEL_ID + (f"+lora-{self.adapter_sha256[:12]}" if self.adapter_sha256 else "")

    @property
    def model_id(self) -> str:
        """The model id DSPy sees (and caches under): the weights id, plus the decoding constraint's."""
        return self.weights_id + (f"+cite-{_grammar_version(self.cite_decoder)}" if self.cite_grammar else "")

    def close(self) -> None:
        with self._lock:
            self._llm = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the loaded model (it is reloaded from the cache on first use)."""
        state = dict(self.__dict__)
        state["_llm"], state["_lock"] = None, None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def dump_state(self) -> dict[str, Any]:
        state = {"cache_dir": str(self.cache_dir), "n_ctx": self.n_ctx, "reuse_prefix": self.reuse_prefix,
                 "cite_grammar": self.cite_grammar, "cite_decoder": self.cite_decoder}
        if self.gguf_path is not None:
            state["gguf_path"] = str(self.gguf_path)
        if self.adapter is not None:
            state.update(adapter=str(self.adapter), adapter_sha256=self.adapter_sha256)
        return state

    def with_adapter(self, adapter: str | Path | None, adapter_sha256: str | None = None) -> LlamaCppEngine:
        """A new engine with the same settings and another adapter (``None``: the base model)."""
        return LlamaCppEngine(self.cache_dir, n_ctx=self.n_ctx, n_threads=self.n_threads,
                              reuse_prefix=self.reuse_prefix, gguf_path=self.gguf_path,
                              cite_grammar=self.cite_grammar, cite_decoder=self.cite_decoder,
                              adapter=adapter, adapter_sha256=adapter_sha256)

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> LlamaCppEngine:
        return cls(**state)

    # -- generation ------------------------------------------------------------------------
    def _seed(self, temperature: float) -> int:
        rollout = _ROLLOUT.get()
        if rollout is not None:
            return int.from_bytes(hashlib.sha256(str(rollout).encode()).digest()[:4], "little")
        return 0 if temperature <= 0 else random.randrange(2**31)

    def run(self, request: Any, on_token: Any = None) -> tuple[str, int, int, str]:
        """Generate a completion; returns (text, prompt tokens, completion tokens, finish reason).

        The output fields are decoded one after another (see the module docstring); the finish reason
        is ``length`` only when the last field ran out of tokens.
        """
        prompt, stops, primed = render_transcript(request)
        last_user = request.messages[-1].text or "" if request.messages else ""
        fields = output_fields(last_user) if primed else []
        config = request.config
        temperature = float(config.temperature or 0.0)
        max_tokens = int(config.max_tokens or 256)
        stops = list(dict.fromkeys([*stops, *(config.stop or ())]))
        text = primed
        completion_tokens = 0
        finish = "stop"
        with self._lock:
            llm = self._model()
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
            prompt_tokens = len(tokens)
            markers = 16 * max(0, len(fields) - 1)  # the next fields' markers are evaluated too
            if prompt_tokens + max_tokens + markers > self.n_ctx:
                from dspy.utils.exceptions import ContextWindowExceededError

                raise ContextWindowExceededError(
                    f"prompt of {prompt_tokens} tokens + {max_tokens} to generate exceeds the embedded "
                    f"model's context of {self.n_ctx} tokens", model=self.weights_id,
                )
            if not self.reuse_prefix:
                llm.reset()
            llm.set_seed(self._seed(temperature))
            started = time.perf_counter()
            for index, name in enumerate(fields or [None]):
                is_last = index >= len(fields) - 1
                if index:  # prime the next field: the model rarely writes its marker by itself
                    joiner = f"\n\n[[ ## {name} ## ]]\n"
                    text = text.rstrip() + joiner
                    if on_token is not None:
                        on_token(joiner)
                    tokens = llm.tokenize((prompt + text[len(primed):]).encode("utf-8"), add_bos=True,
                                          special=False)
                later = [f"[[ ## {f} ## ]]" for f in fields[index + 1:]]
                segment_stops = list(dict.fromkeys([*stops, *later]))
                grammar = self._constraint(llm, len(tokens), last_user, name) if is_last else None
                if grammar is not None:  # the constraint ends the answer with the end marker itself
                    segment_stops = [END_MARKER] if isinstance(grammar, RegexConstraint) else []
                budget = field_budget(max_tokens - completion_tokens, len(fields) - index)
                piece_text, used, segment_finish = self._generate(
                    llm, tokens, budget, temperature, segment_stops, grammar, on_token)
                text += piece_text
                completion_tokens += used
                if is_last:
                    finish = segment_finish
                if completion_tokens >= max_tokens and not is_last:
                    finish = "length"
                    break
            self.stats["calls"] += 1
            self.stats["prompt_tokens"] += prompt_tokens
            self.stats["completion_tokens"] += completion_tokens
            self.stats["seconds"] += time.perf_counter() - started
        text = text.rstrip()
        if finish == "stop" and primed and not text.endswith(END_MARKER):
            text += f"\n\n{END_MARKER}"
        return text, prompt_tokens, completion_tokens, finish

    def _constraint(self, llm: Any, n_prompt: int, last_user: str, field: str | None) -> Any:
        """The citation constraint (RegexConstraint or GBNF grammar) when ``field`` is the answer of a
        cited-answer prompt, else None."""
        if not self.cite_grammar:
            return None
        n = cited_answer_passages(last_user, field)
        if not n:
            return None
        if self.cite_decoder == "regex":
            return RegexConstraint(llm, citation_pattern(n), n_prompt)
        from llama_cpp import LlamaGrammar

        return LlamaGrammar.from_string(citation_grammar(n), verbose=False)

    @staticmethod
    def _generate(llm: Any, tokens: list[int], max_tokens: int, temperature: float, stops: list[str],
                  grammar: Any, on_token: Any) -> tuple[str, int, str]:
        """One streamed llama.cpp completion: (text, generated tokens, finish reason)."""
        pieces: list[str] = []
        used = 0
        finish = "stop"
        processors = None
        if isinstance(grammar, RegexConstraint):
            from llama_cpp import LogitsProcessorList

            processors, grammar = LogitsProcessorList([grammar]), None
        for chunk in llm.create_completion(
            prompt=tokens, max_tokens=max_tokens, temperature=temperature, top_p=0.95, top_k=40,
            repeat_penalty=1.1, stop=stops, stream=True, grammar=grammar, logits_processor=processors,
        ):
            choice = chunk["choices"][0]
            piece = choice.get("text") or ""
            if piece:
                used += 1
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
            if choice.get("finish_reason"):
                finish = "length" if choice["finish_reason"] == "length" else "stop"
        return "".join(pieces), used, finish

    def complete(self, request: Any) -> Response:
        text, prompt_tokens, completion_tokens, finish = self.run(request, on_token=TOKEN_SINK.get())
        return Response(
            id=None, model=self.weights_id, message=Message.assistant([TextPart(text)]), finish_reason=finish,
            usage=Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
        )

    def stream(self, request: Any) -> Iterator[Any]:
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))


class EmbeddedLM(dspy.LM):
    """``dspy.LM`` on the embedded Gemma 3 270M engine. Works wherever a DSPy LM does.

    ``adapter`` (a LoRA adapter GGUF, optionally pinned by ``adapter_sha256``) runs the fine-tuned
    model; the adapter's sha256 is in the model id. The LM's provider is
    :class:`~groundqa.lm.finetune.provider.EmbeddedProvider`, so ``dspy.BootstrapFinetune`` trains a
    LoRA for it and hands back an ``EmbeddedLM`` with that adapter.
    """

    def __init__(
        self,
        cache_dir: str | Path,
        temperature: float = 0.0,
        max_tokens: int = 256,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        reuse_prefix: bool = True,
        cite_grammar: bool = True,
        cite_decoder: str = "regex",
        cache: bool = True,
        engine: LlamaCppEngine | None = None,
        adapter: str | Path | None = None,
        adapter_sha256: str | None = None,
        **kwargs: Any,
    ) -> None:
        engine = engine or LlamaCppEngine(cache_dir, n_ctx=n_ctx, n_threads=n_threads, reuse_prefix=reuse_prefix,
                                          cite_grammar=cite_grammar, cite_decoder=cite_decoder, adapter=adapter,
                                          adapter_sha256=adapter_sha256)
        if kwargs.get("provider") is None:
            from groundqa.lm.finetune.provider import EmbeddedProvider

            kwargs["provider"] = EmbeddedProvider(engine.cache_dir, gguf_path=engine.gguf_path)
        if engine.adapter is not None and hasattr(kwargs["provider"], "adapters"):
            from groundqa.lm.finetune.adapter import Adapter

            # copies may switch back to this adapter by model id (``copy(model=...)``)
            kwargs["provider"].adapters[engine.adapter_sha256[:12]] = Adapter(engine.adapter, engine.adapter_sha256)
        super().__init__(
            engine.model_id, engine=engine, temperature=temperature, max_tokens=max_tokens, cache=cache,
            num_retries=0, **kwargs,
        )
        self.llama = engine

    @property
    def adapter(self) -> Path | None:
        """The LoRA adapter GGUF this LM runs (None: the base model)."""
        return self.llama.adapter

    def __call__(self, prompt: Any = None, *, messages: Any = None, **kwargs: Any) -> Any:
        token = _ROLLOUT.set(kwargs.get("rollout_id", self.kwargs.get("rollout_id")))
        try:
            return super().__call__(prompt, messages=messages, **kwargs)
        finally:
            _ROLLOUT.reset(token)

    def copy(self, **kwargs: Any) -> EmbeddedLM:
        """A copy; ``model=`` naming other weights (``MODEL_ID+lora-<sha12>``, as returned by a
        fine-tune of this LM's provider, or the base ``MODEL_ID``) switches the engine's adapter."""
        model = kwargs.get("model")
        if model is not None and model != self.model:
            engine = self._engine_for(str(model))
            kwargs.update(model=engine.model_id, engine=engine)
        new = super().copy(**kwargs)
        new.llama = new._engine_spec if isinstance(new._engine_spec, LlamaCppEngine) else self.llama
        return new

    def _engine_for(self, model: str) -> LlamaCppEngine:
        tag = _LORA_TAG.search(model)
        if not model.startswith(MODEL_ID):
            raise LMBackendError(f"the embedded LM cannot run {model!r}")
        if tag is None:
            return self.llama.with_adapter(None)
        if self.llama.adapter_sha256 and self.llama.adapter_sha256.startswith(tag.group(1)):
            return self.llama
        found = getattr(self.provider, "adapters", {}).get(tag.group(1))
        if found is None:
            raise LMBackendError(f"no LoRA adapter known for {model!r}: create the LM with adapter=PATH")
        return self.llama.with_adapter(found.path, found.sha256)

    @classmethod
    def load_state(cls, state: dict[str, Any], *, allow_custom_lm_class: bool = False) -> EmbeddedLM:
        """Rebuild from :meth:`dump_state` output (engine settings and adapter included); the adapter's
        sha256 is checked again when the model is first loaded."""
        from dspy.clients.base_lm import LM_CLASS_STATE_KEY

        state = dict(state)
        state.pop(LM_CLASS_STATE_KEY, None)
        record = state.pop("engine", None) or {}
        if record.get("class", _ENGINE_CLASS) != _ENGINE_CLASS:
            raise ValueError(f"an EmbeddedLM state must carry a {_ENGINE_CLASS} engine, not {record.get('class')}")
        for key in ("model", "model_type", "num_retries", "async_engine"):
            state.pop(key, None)
        engine = LlamaCppEngine.load_state(record.get("state") or {})
        return cls(cache_dir=engine.cache_dir, engine=engine, **state)


_ENGINE_CLASS = f"{LlamaCppEngine.__module__}:{LlamaCppEngine.__qualname__}"
_LORA_TAG = re.compile(r"\+lora-([0-9a-f]{12})")
_LOG_FILTER: Any = None


@functools.cache
def llama_cpp_build() -> str:
    """llama.cpp's version and the instruction sets it was built for ("0.3.36 AVX AVX2 … AVX512 …").

    llama.cpp is compiled for the machine that installs it, and another set of kernels (AVX2 against AVX-512)
    rounds otherwise: the answer judge's margins moved by 0.10 on average (at most 0.33; a median margin is 5.3)
    between an AVX2 and an AVX-512 build of 0.3.36, where one build gives the same margins bit for bit
    (docs/BENCHMARKS.md, session 33). A cache of the model's numbers is keyed by this, and a benchmark records it."""
    import llama_cpp

    try:
        info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - a description only: the version still keys the numbers
        info = ""
    features = [part.split("=")[0].strip() for part in info.replace("CPU :", "").split("|") if part.strip().endswith("= 1")]
    return " ".join([str(llama_cpp.__version__), *features])


def _quiet_lora_buffer_warnings() -> None:
    """Drop llama.cpp's per-tensor "lora for 'blk.N…' cannot use buft 'CPU_REPACK', fallback to CPU"
    warnings (126 lines per adapter load, printed because llama-cpp-python maps the warning level to
    an error); every other log line goes to llama-cpp-python's own callback as before."""
    global _LOG_FILTER
    if _LOG_FILTER is not None:
        return
    import ctypes

    import llama_cpp
    from llama_cpp import _logger

    @llama_cpp.llama_log_callback
    def _filter(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if b"cannot use buft" not in text:
            _logger.llama_log_callback(level, text, user_data)

    _LOG_FILTER = _filter  # kept alive: llama.cpp holds a raw pointer to it
    llama_cpp.llama_log_set(_filter, ctypes.c_void_p(0))
