"""groundqa: a declarative DSPy program with optimizers for grounded, cited question answering."""

__version__ = "0.1.0"
