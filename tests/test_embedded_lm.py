"""The real embedded LM (Gemma 3 270M through llama.cpp) — integration tests, no network."""

from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest

from groundqa.lm.embedded import END_MARKER, MIN_FIELD_TOKENS, field_budget, output_fields, render_transcript

pytestmark = pytest.mark.integration


class QA(dspy.Signature):
    """Answer the question from the passage with a short span."""

    passage: str = dspy.InputField()
    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


DEMOS = [
    dspy.Example(passage="The mill on the Arden river was built in 1820.", question="When was the mill built?",
                 answer="1820").with_inputs("passage", "question"),
    dspy.Example(passage="Mira Stolz painted the chapel ceiling.", question="Who painted the chapel ceiling?",
                 answer="Mira Stolz").with_inputs("passage", "question"),
]


def test_parses_dspy_chat_format_and_reports_usage(embedded_lm):
    predict = dspy.Predict(QA)
    predict.demos = DEMOS
    with dspy.context(lm=embedded_lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
        out = predict(passage="The lighthouse on Calder was automated in 1999.", question="When was it automated?")
    assert isinstance(out.answer, str) and out.answer.strip()
    entry = embedded_lm.history[-1]
    assert entry["usage"]["prompt_tokens"] > 50 and entry["usage"]["completion_tokens"] > 0
    assert entry["outputs"][0].rstrip().endswith(END_MARKER)


def test_deterministic_at_temperature_zero_and_thread_safe(embedded_lm):
    messages = [{"role": "user", "content": "The capital of the invented land of Orrin is"}]
    first = embedded_lm(messages=messages, max_tokens=12)
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda _: embedded_lm(messages=messages, max_tokens=12), range(3)))
    assert all(r == first for r in results)
    sampled = {embedded_lm(messages=messages, max_tokens=12, temperature=1.0, rollout_id=i)[0] for i in range(3)}
    assert len(sampled) > 1  # temperature > 0 with different rollout ids samples different text


def test_transcript_primes_first_output_field_and_stops_at_inputs():
    from dspy.lm15 import Message, Request

    request = Request(model="m", system="Your input fields are: question", messages=(Message.user(
        "[[ ## question ## ]]\nWho?\n\nRespond with the corresponding output fields, starting with the field "
        "`[[ ## answer ## ]]`, and then ending with the marker for `[[ ## completed ## ]]`."),))
    prompt, stops, primed = render_transcript(request)
    assert prompt.endswith("[[ ## answer ## ]]\n") and primed == "[[ ## answer ## ]]\n"
    assert END_MARKER in stops and "[[ ## question ## ]]" in stops and "[[ ## answer ## ]]" not in stops


def test_output_fields_are_read_in_order_with_type_notes():
    reminder = ("Respond with the corresponding output fields, starting with the field `[[ ## reasoning ## ]]`, "
                "then `[[ ## answer ## ]]`, then `[[ ## confidence ## ]]` (must be formatted as a valid Python "
                "float), and then ending with the marker for `[[ ## completed ## ]]`.")
    assert output_fields("[[ ## question ## ]]\nWho?\n\n" + reminder) == ["reasoning", "answer", "confidence"]
    assert output_fields("no reminder here") == []


def test_field_budget_shares_tokens_and_gives_the_rest_to_the_last_field():
    assert field_budget(256, 2) == 128 and field_budget(100, 1) == 100
    assert field_budget(40, 3) == MIN_FIELD_TOKENS  # never starve an early field
    assert field_budget(0, 1) == 1
    assert field_budget(10, 2) == 10  # never more than what is left of max_tokens


class CitedQA(dspy.Signature):
    """Answer the question from the numbered passages; cite them like [1]."""

    question: str = dspy.InputField()
    passages: str = dspy.InputField()
    answer: str = dspy.OutputField()


def test_chain_of_thought_gets_every_field_from_the_base_model(embedded_lm):
    """A 270M base model never writes `[[ ## answer ## ]]` after its reasoning by itself: the engine
    decodes field by field, so ChainOfThought parses and the cited answer keeps its grammar."""
    with dspy.context(lm=embedded_lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
        out = dspy.ChainOfThought(CitedQA)(
            question="When was the lighthouse on Calder automated?",
            passages="[1] Calder lighthouse\nThe lighthouse on Calder was automated in 1999.\n\n"
                     "[2] Arden mill\nThe mill on the Arden river was built in 1820.")
    assert out.reasoning.strip() and out.answer.strip()
    assert out.answer == "NOT IN SOURCES" or out.answer.rstrip().endswith(("[1]", "[2]"))
    entry = embedded_lm.history[-1]
    text = entry["outputs"][0]
    assert text.index("[[ ## reasoning ## ]]") < text.index("[[ ## answer ## ]]") < text.index(END_MARKER)
    assert entry["usage"]["completion_tokens"] <= 256
