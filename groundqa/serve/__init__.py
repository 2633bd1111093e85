"""HTTP serving: the groundqa API (``groundqa serve``) and an OpenAI-compatible server on the embedded LM."""
