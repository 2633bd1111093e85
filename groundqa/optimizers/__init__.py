"""Optimizers of groundqa's own: what DSPy's optimizers cannot reach (the grounding gates)."""
