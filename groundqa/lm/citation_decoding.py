"""Citation-constrained decoding: the embedded LM's answer is held to the cited-answer language
(:func:`citation_pattern`) by a regex constraint for llama.cpp that checks the likeliest tokens first.
(Not :mod:`groundqa.contracts.constrained`, which retries a module until its output meets constraints.)

llama.cpp's GBNF sampler checks *every* token of the vocabulary against the grammar at every step;
with Gemma 3's 262,144-token vocabulary that costs ~50 ms per generated token on two cores, 4× the
decoding itself (``python -m benchmarks run --suite lm``). :class:`RegexConstraint` is a logits
processor that does what llama.cpp's own ``common_sampler`` does to avoid that cost: it checks the
``top`` highest-scoring tokens first; when none of them can continue a string of the language it
tries the structural tokens (punctuation, digits, brackets: what closes a sentence and cites), and
only then a bounded stretch of the ranking, ending the completion if nothing fits. A token is allowed when the text generated so far plus the
token's text is still a prefix of some match of the pattern (``regex`` partial matching).

With greedy decoding the chosen token is the highest-scoring allowed token (as with the grammar),
unless the repeat penalty applied after this processor reorders the few candidates kept.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import regex

#: The end of an answer the ChatAdapter can parse; the constrained answer must end with it.
COMPLETED = "\n\n[[ ## completed ## ]]"


def citation_pattern(n_passages: int) -> str:
    """``NOT IN SOURCES`` or one sentence ending with one or two citations ``[k]`` of listed passages.

    The same language as :func:`groundqa.lm.embedded.citation_grammar` (GBNF), as a regex.
    """
    numbers = "|".join(str(k) for k in range(max(1, n_passages), 0, -1))
    sentence = rf'[A-Z0-9"](?:[^\[\]\n.?!]|\.[0-9]){{2,240}}[.?!] \[(?:{numbers})\](?:\[(?:{numbers})\])?'
    return rf"(?:NOT IN SOURCES|{sentence}){regex.escape(COMPLETED)}"


_STRUCTURAL = frozenset(" .?![]0123456789\n#\"'")
_STRUCTURAL_TOKENS: weakref.WeakKeyDictionary[Any, np.ndarray] = weakref.WeakKeyDictionary()
"""Per model object: the tokens whose text has no letter (punctuation, digits, brackets, markers), found once.
Keyed by the object itself, held weakly: an ``id()`` is reused once a model is freed, and another model at
that address (another vocabulary) would have read this one's tokens."""


def structural_tokens(llm: Any) -> np.ndarray:
    """The ids of ``llm``'s tokens made only of punctuation, digits, brackets and spaces: what closes a
    sentence and writes its citation. Scanned once per model (a few seconds for 262,144 tokens)."""
    cached = _STRUCTURAL_TOKENS.get(llm)
    if cached is None:
        ids = []
        for token in range(llm.n_vocab()):
            try:
                text = llm.detokenize([token], special=False).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if text and set(text) <= _STRUCTURAL:
                ids.append(token)
        cached = _STRUCTURAL_TOKENS[llm] = np.asarray(ids, dtype=np.int64)
    return cached


class RegexConstraint:
    """A llama-cpp-python logits processor keeping only tokens that extend a viable prefix of ``pattern``.

    ``llm`` is the ``llama_cpp.Llama`` generating, ``n_prompt`` the number of prompt tokens (the
    constraint applies to what follows them). One instance per completion.
    """

    def __init__(self, llm: Any, pattern: str, n_prompt: int, top: int = 64, max_scan: int = 16_384) -> None:
        self.llm = llm
        self.pattern = regex.compile(pattern, regex.S)
        self.n_prompt = n_prompt
        self.top = top
        self.max_scan = max_scan
        self.text = ""
        self._seen = 0
        self._pieces: dict[int, str | None] = {}
        self.checked = 0  # candidate tokens tested (diagnostics)
        self.fallbacks = 0  # steps where no top token was allowed

    def piece(self, token: int) -> str | None:
        """The text of one token, or None for control tokens and partial UTF-8 sequences."""
        if token not in self._pieces:
            raw = self.llm.detokenize([token], special=False)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            self._pieces[token] = text or None
        return self._pieces[token]

    def viable(self, text: str) -> bool:
        """Whether ``text`` is a match or a prefix of one."""
        return self.pattern.fullmatch(text, partial=True) is not None

    def allowed(self, token: int) -> bool:
        """Whether ``token`` may follow the text generated so far."""
        self.checked += 1
        piece = self.piece(token)
        return piece is not None and self.viable(self.text + piece)

    def _catch_up(self, input_ids: Sequence[int]) -> None:
        generated = list(input_ids[self.n_prompt:])
        for token in generated[self._seen:]:
            self.text += self.piece(int(token)) or ""
        self._seen = len(generated)

    def __call__(self, input_ids: Sequence[int], logits: np.ndarray) -> np.ndarray:
        self._catch_up(input_ids)
        k = min(self.top, logits.shape[0])
        top = np.argpartition(-logits, k - 1)[:k]
        top = top[np.argsort(-logits[top], kind="stable")]
        keep = [int(t) for t in top if self.allowed(int(t))]
        if not keep:
            keep = self._fallback(logits, k)
        out = np.full_like(logits, -np.inf)
        if keep:
            out[keep] = logits[keep]
        else:  # nothing can continue the pattern: end the completion
            out[self.llm.token_eos()] = 0.0
        return out

    def _fallback(self, logits: np.ndarray, skip: int) -> list[int]:
        """No likely token fits: the pattern mostly wants to close the sentence and cite ("." then " [1]"),
        so the structural tokens are tried first (best-scoring first), then at most ``max_scan`` more of
        the ranking; checking all 262,144 tokens by regex would cost about a second per step."""
        self.fallbacks += 1
        structural = structural_tokens(self.llm)
        if structural.size:
            ordered = structural[np.argsort(-logits[structural], kind="stable")]
            keep = [int(t) for t in ordered if self.allowed(int(t))]
            if keep:
                return keep[: self.top]
        ranked = np.argsort(-logits, kind="stable")
        for start in range(skip, min(ranked.shape[0], skip + self.max_scan), 4096):
            keep = [int(t) for t in ranked[start:start + 4096] if self.allowed(int(t))]
            if keep:
                return keep
        return []
