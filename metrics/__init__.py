"""Grounding metrics (ALCE citation recall/precision, faithfulness, correctness, abstention) and judges."""
