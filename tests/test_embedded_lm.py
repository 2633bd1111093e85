"""The real embedded LM (Gemma 3 270M through llama.cpp) — integration tests, no network."""

from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest

from groundqa.lm.embedded import END_MARKER, render_transcript

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
