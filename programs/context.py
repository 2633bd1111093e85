"""Numbered context within a character budget: what is cut is recorded, never silent."""

from __future__ import annotations

from dataclasses import dataclass, field

from groundqa.runtime.run import current_run
from groundqa.signatures.types import ExitReason, Passage
from groundqa.text import truncate


@dataclass
class NumberedContext:
    """Passages numbered ``[1]..[n]`` as the LM sees them, plus what did not fit."""

    passages: list[Passage]
    text: str
    dropped: list[Passage] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.passages)


def render_passage(number: int, passage: Passage) -> str:
    title = f" {passage.title}" if passage.title else ""
    return f"[{number}]{title}\n{passage.text.strip()}"


def merge_passages(*groups: list[Passage]) -> list[Passage]:
    """Merge retrieval results, each best first, by rank: every group's first passage, then every group's
    second, and so on, a chunk kept once: where it ranks first, with its best score. Each group keeps its
    retriever's order (dense hits re-ranked with word overlap), which a re-sort by the dense score would undo."""
    merged: dict[str, Passage] = {}
    for rank in range(max((len(g) for g in groups), default=0)):
        for group in groups:
            if rank < len(group):
                passage = group[rank]
                known = merged.get(passage.chunk_id)
                if known is None or passage.score > known.score:
                    merged[passage.chunk_id] = passage  # an existing key keeps its place
    return list(merged.values())


def build_context(passages: list[Passage], max_chars: int, policy: str = "trim") -> NumberedContext:
    """Number ``passages`` (best first) until ``max_chars`` is reached.

    ``policy="trim"`` drops the passages that do not fit (the first one is shortened if it alone is
    too long) and records it in the run's notes and usage; ``policy="stop"`` ends the run with
    ``MAX_CONTEXT_REACHED`` instead of cutting anything.
    """
    kept: list[Passage] = []
    blocks: list[str] = []
    used = 0
    truncated: list[str] = []
    dropped: list[Passage] = []
    for passage in passages:
        block = render_passage(len(kept) + 1, passage)
        extra = len(block) + (2 if blocks else 0)
        if used + extra <= max_chars:
            kept.append(passage)
            blocks.append(block)
            used += extra
            continue
        if policy == "stop":
            run = current_run()
            message = f"context budget of {max_chars} characters cannot hold passage {passage.chunk_id}"
            if run is not None:
                raise run.stop(ExitReason.MAX_CONTEXT_REACHED, message)
            raise ValueError(message)
        if not kept:  # the best passage alone is too long: shorten it explicitly
            head = f"[1]{' ' + passage.title if passage.title else ''}\n"
            short = passage.model_copy(update={"text": truncate(passage.text, max(50, max_chars - len(head)))})
            kept.append(short)
            blocks.append(render_passage(1, short))
            used = len(blocks[0])
            truncated.append(passage.chunk_id)
            continue
        dropped.append(passage)
    context = NumberedContext(kept, "\n\n".join(blocks), dropped, truncated)
    run = current_run()
    if run is not None:
        run.usage.context_chars += len(context.text)
        if dropped or truncated:
            run.usage.trimmed_passages += len(dropped) + len(truncated)
            run.note(
                f"context trimmed to {max_chars} characters: dropped {len(dropped)} passage(s)"
                + (f", shortened {', '.join(truncated)}" if truncated else "")
            )
    return context
