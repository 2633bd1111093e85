"""The registry of benchmark suites: what ``python -m benchmarks`` can run, and in which groups.

A suite is a function ``(args: argparse.Namespace) -> dict`` registered under a name with
:func:`register`. Its result dict follows one convention so the runner can write it:

``title``
    heading of the Markdown report.
``config`` / ``results``
    free-form, JSON-serialisable: the knobs used and the structured numbers.
``tables``
    list of ``{"title": str, "columns": [str], "rows": [[value]]}``; rendered as Markdown tables.
``notes``
    list of strings, rendered as bullets under the tables.
``chart`` (optional)
    ``{"title", "ylabel", "series": {label: {category: value}}, "log": bool}`` or a list of such
    specs (panels side by side); rendered as a grouped bar chart ``<suite>.png``.
``headline`` (optional)
    list of one-line figures (ratios, targets met or missed) collected into ``summary.md`` when
    several suites run in one command.

The runner adds ``suite``, ``quick``, ``command``, ``environment``, ``started`` and ``seconds``.
To add a suite, write a module that decorates its function with ``@register("name")`` and append
the module to :data:`SUITE_MODULES` (suites register on import, so a module missing from that list
is never offered by the runner).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

SuiteFn = Callable[[argparse.Namespace], dict[str, Any]]

#: name -> suite function; filled by :func:`register` when a suite module is imported.
SUITES: dict[str, SuiteFn] = {}

#: Modules holding suites; :func:`load_suites` imports them (in this order).
SUITE_MODULES: list[str] = [
    "benchmarks.retrieval", "benchmarks.lm_speed", "benchmarks.quality", "benchmarks.cache",
    "benchmarks.runtime_overhead", "benchmarks.contract_overhead", "benchmarks.judge_agreement",
    "benchmarks.serve", "benchmarks.fuzz", "benchmarks.finetune", "benchmarks.selection", "benchmarks.judge_speed",
    "benchmarks.sentence_vectors",
]

#: Where the runner writes ``<suite>.json|md|png`` unless ``--out`` says otherwise.
DEFAULT_OUT = Path(__file__).resolve().parent / "results"

#: Named groups of suites run by one command. ``peers`` is the whole comparison of issue 8: the peers
#: table on the bundled test split and on a SQuAD 2.0 sample, cold vs warm cache, prefix reuse.
GROUPS: dict[str, tuple[str, ...]] = {"peers": ("quality", "quality-squad", "cache", "lm")}

#: Wall-time targets of one ``--suite peers`` run on the project's 2-core machines (issue 8).
TARGET_S = {True: 5 * 60.0, False: 30 * 60.0}


def register(name: str) -> Callable[[SuiteFn], SuiteFn]:
    """Decorator: register a suite function under ``name``."""

    def decorate(fn: SuiteFn) -> SuiteFn:
        SUITES[name] = fn
        return fn

    return decorate


def load_suites() -> dict[str, SuiteFn]:
    """Import every module of :data:`SUITE_MODULES` and return the registry."""
    for module in SUITE_MODULES:
        importlib.import_module(module)
    return SUITES
