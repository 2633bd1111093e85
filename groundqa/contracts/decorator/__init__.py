"""``@contract``: SymbolicAI-style pre / act / post contracts for any DSPy module class.

This subpackage is for users' own modules. GroundedQA itself does not use it: its
``CitedSynthesizer`` checks the answer with ``Assert`` / ``Suggest`` in ``forward`` and GroundedQA
runs it through ``constrained`` (the rest of ``groundqa.contracts``); its pre-condition on the
question is a plain ``check_question`` in ``programs/grounded_qa.py``. The decorator lives apart
so that the contract code GroundedQA runs stays separate from this optional layer, which reuses
that runtime (``run_contract``, feedback injection, reports) for its output remedies.

Modules: ``decorator`` (the class decorator), ``spec`` (what it reads from the class at definition
time), ``call`` (one call: input validation, act, output validation, forward), ``native_types``
(checking values against annotations), ``schedule`` (tries and waits between remedy attempts),
``perf`` (per-stage timings behind ``contract_perf_stats()``).

``from groundqa.contracts import contract`` re-exports the decorator.
"""

from groundqa.contracts.decorator.decorator import contract

__all__ = ["contract"]
