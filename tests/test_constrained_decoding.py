"""RegexConstraint: the citation language, candidate search and masking (fake tokenizer), and
parity with llama.cpp's GBNF grammar on the real embedded model."""

import numpy as np
import pytest
import regex

from groundqa.lm.citation_decoding import COMPLETED, RegexConstraint, citation_pattern


class FakeLlama:
    """A tokenizer over a fixed vocabulary of text pieces (id = index); id 0 is the EOS token."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces

    def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
        return "".join(self.pieces[t] for t in tokens).encode("utf-8")

    def token_eos(self) -> int:
        return 0

    def n_vocab(self) -> int:
        return len(self.pieces)


VOCAB = ["", "The", " mill", " was built in 1820", ".", " [", "1", "2", "]", "\n\n", "[[ ## completed ## ]]",
         "NOT IN SOURCES", "[", " and", "?", "\n", "7"]


def constraint(prompt: int = 3, top: int = 4) -> tuple[RegexConstraint, FakeLlama]:
    llm = FakeLlama(VOCAB)
    return RegexConstraint(llm, citation_pattern(2), n_prompt=prompt, top=top), llm


@pytest.mark.parametrize("text, ok", [
    ("NOT IN SOURCES" + COMPLETED, True),
    ("The mill was built in 1820. [1]" + COMPLETED, True),
    ("The mill was built in 1820. [1][2]" + COMPLETED, True),
    ("Pi is 3.14 here. [2]" + COMPLETED, True),
    ("The mill was built in 1820. [3]" + COMPLETED, False),  # only two passages listed
    ("The mill was built in 1820." + COMPLETED, False),  # no citation
    ("The mill. And more. [1]" + COMPLETED, False),  # one sentence only
    ("the mill was built. [1]" + COMPLETED, False),  # starts with a capital, digit or quote
])
def test_citation_pattern_accepts_exactly_the_cited_answer_language(text: str, ok: bool) -> None:
    assert (regex.fullmatch(citation_pattern(2), text) is not None) is ok


def test_only_tokens_that_keep_a_viable_prefix_survive() -> None:
    c, _ = constraint(top=len(VOCAB))
    logits = np.arange(len(VOCAB), dtype=np.float32)
    c.text = "The mill was built in 1820."
    out = c(list(range(3)), logits.copy())  # nothing generated yet beyond the prompt
    allowed = {VOCAB[i] for i in np.flatnonzero(np.isfinite(out))}
    assert allowed == {" [", "1", "2", "7"}  # a citation, or a decimal like 1820.7
    assert out[VOCAB.index(" [")] == logits[VOCAB.index(" [")]  # kept scores are unchanged
    top_only, _ = constraint(top=4)  # the 4 best tokens hold one that fits: nothing else is checked
    top_only.text = c.text
    out = top_only(list(range(3)), logits.copy())
    assert {VOCAB[i] for i in np.flatnonzero(np.isfinite(out))} == {"7"} and top_only.checked == 4


def test_tokens_generated_after_the_prompt_are_tracked() -> None:
    c, _ = constraint(prompt=2)
    ids = [9, 9, VOCAB.index("The"), VOCAB.index(" mill")]
    out = c(ids, np.zeros(len(VOCAB), dtype=np.float32))
    assert c.text == "The mill"
    assert np.isfinite(out[VOCAB.index(" was built in 1820")]) and not np.isfinite(out[VOCAB.index("]")])


def test_walks_down_the_ranking_when_no_top_token_fits() -> None:
    c, _ = constraint(top=2)
    c.text = "The mill was built in 1820. [1"
    logits = np.zeros(len(VOCAB), dtype=np.float32)
    logits[VOCAB.index(" and")] = 9.0  # the two best tokens cannot follow "[1"
    logits[VOCAB.index("?")] = 8.0
    out = c([0, 0, 0], logits)
    assert c.fallbacks == 1
    assert np.isfinite(out[VOCAB.index("]")]) and not np.isfinite(out[VOCAB.index(" and")])


def test_the_fallback_tries_the_structural_tokens_before_scanning_the_ranking() -> None:
    pieces = ["", "The", " mill", " was built in 1820", *[f" word{i}" for i in range(40)], ".", " [", "1", "]"]
    llm = FakeLlama(pieces)
    c = RegexConstraint(llm, citation_pattern(1), n_prompt=0, top=2, max_scan=8)  # "." lies beyond the scan
    c.text = "The mill was built in 1820."  # only " [" (or a decimal digit) may follow
    logits = np.linspace(1.0, 0.0, len(pieces)).astype(np.float32)  # the structural tokens rank last
    out = c([], logits)
    assert c.fallbacks == 1 and np.isfinite(out[pieces.index(" [")])
    assert not np.isfinite(out[pieces.index(" word0")])
    assert c.checked < len(pieces)  # the words beyond the top were never tested


def test_a_dead_end_ends_the_completion_with_eos() -> None:
    llm = FakeLlama(["", "x", "y"])
    c = RegexConstraint(llm, citation_pattern(1), n_prompt=0, top=2)
    out = c([], np.zeros(3, dtype=np.float32))
    assert np.isfinite(out[0]) and not np.isfinite(out[1:]).any()


def test_partial_utf8_and_control_tokens_are_never_allowed() -> None:
    class Bytes(FakeLlama):
        def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
            return b"\xe2\x82" if tokens == [1] else super().detokenize(tokens, special)

    c = RegexConstraint(Bytes(["", "?", "The"]), citation_pattern(1), n_prompt=0, top=3)
    out = c([], np.zeros(3, dtype=np.float32))
    assert not np.isfinite(out[0]) and not np.isfinite(out[1]) and np.isfinite(out[2])


@pytest.mark.integration
def test_regex_decoder_matches_the_gbnf_grammar_on_the_real_model(embedded_lm, tmp_path) -> None:
    """Greedy decoding under RegexConstraint picks the same answers as llama.cpp's GBNF sampler."""
    import dspy

    from groundqa.lm.embedded import EmbeddedLM

    class Cited(dspy.Signature):
        """Answer from the numbered passages; end the sentence with citations like [1]."""

        question: str = dspy.InputField()
        passages: str = dspy.InputField()
        answer: str = dspy.OutputField()

    gbnf = EmbeddedLM(tmp_path, cache=False, cite_decoder="gbnf", engine=None)
    gbnf.llama._llm = embedded_lm.llama._model()  # share the loaded weights
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=False)
    passages = ("[1] Calder lighthouse\nThe lighthouse on Calder was automated in 1999.\n\n"
                "[2] Arden mill\nThe mill on the Arden river was built in 1820.")
    for question in ("When was the Calder lighthouse automated?", "When was the Arden mill built?"):
        messages = adapter.format(Cited, [], {"question": question, "passages": passages})
        regex_out = embedded_lm(messages=messages)[0]
        gbnf_out = gbnf(messages=messages)[0]
        assert regex_out == gbnf_out
        answer = adapter.parse(Cited, regex_out)["answer"]
        assert answer == "NOT IN SOURCES" or regex.fullmatch(r".+ \[[12]\](\[[12]\])?", answer)
    with pytest.raises(ValueError, match="cite_decoder"):
        EmbeddedLM(tmp_path, cite_decoder="lark")


def test_the_structural_tokens_are_cached_per_model_object_not_per_address() -> None:
    """A freed model's entry goes with it: an ``id()`` is reused, and a new model at the same address (another
    vocabulary) must not read the old one's token ids (it did, in a full test run: an index out of bounds)."""
    import gc

    from groundqa.lm.citation_decoding import _STRUCTURAL_TOKENS, structural_tokens

    small = FakeLlama(["", "x", "."])
    assert structural_tokens(small).tolist() == [2]
    assert small in _STRUCTURAL_TOKENS
    before = len(_STRUCTURAL_TOKENS)
    del small
    gc.collect()
    assert len(_STRUCTURAL_TOKENS) == before - 1
    assert structural_tokens(FakeLlama(["", "x", "y", "[1]"])).tolist() == [3]
