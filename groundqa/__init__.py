"""groundqa: a declarative DSPy program with optimizers for grounded, cited question answering."""

import os

# litellm (imported by DSPy and by MLflow's scorers) fetches its model cost map from the network when it is
# imported; behind a firewall that fetch stalls, and inside `mlflow server` it deadlocks with MLflow's own
# imports. The copy shipped with litellm is enough for groundqa, so every entry point (the console script,
# optimize.py, python -m benchmarks, the API, a loaded MLflow model) asks for it unless the user chose otherwise.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# torch (MiniLM embeddings) and llama.cpp share two cores; torch's OpenMP workers spin after each batch by
# default and starve the LM's threads. Passive waiting gives the cores back (unless the user chose otherwise).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"
