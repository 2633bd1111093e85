"""groundqa benchmarks: suites that measure the project on this machine and write their results.

``python -m benchmarks list | run --suite NAME|GROUP|all`` (:mod:`benchmarks.__main__`) runs the
suites registered in :mod:`benchmarks.registry` and writes them with :mod:`benchmarks.report`.
Suites: :mod:`~benchmarks.retrieval`, :mod:`~benchmarks.lm_speed`, :mod:`~benchmarks.quality`
(GroundedQA against plain DSPy RAG peers), :mod:`~benchmarks.cache`, :mod:`~benchmarks.runtime_overhead`,
:mod:`~benchmarks.contract_overhead`, :mod:`~benchmarks.judge_agreement`. The peers suites share
:mod:`~benchmarks.meters` (LM and retriever meters) and :mod:`~benchmarks.suite_setup` (data, store,
warm-up, cold caches); :mod:`~benchmarks.peers` is their own command line.

Nothing is imported here, so that importing one suite does not load the others.
"""
