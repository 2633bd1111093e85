"""Declarative I/O of groundqa: DSPy signatures and the pydantic types they exchange."""
