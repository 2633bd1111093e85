"""Fine-tuning the embedded LM: a LoRA trained on CPU from the shipped GGUF, run by llama.cpp.

records (DSPy chat data → prompt/completion as the engine renders them) → lora (train with
transformers + peft, loss on the completion only) → export (adapter GGUF) → adapter (checks before
loading) → ``EmbeddedLM(adapter=...)``. ``provider.EmbeddedProvider`` wires it into
``dspy.BootstrapFinetune``. The training modules import torch only when a run starts.
"""

from groundqa.lm.finetune.adapter import Adapter, AdapterInfo, adapter_sha256, verify_adapter
from groundqa.lm.finetune.export import write_adapter_gguf
from groundqa.lm.finetune.lora import StepReport, TrainResult, train_lora
from groundqa.lm.finetune.provider import EmbeddedProvider, EmbeddedTrainingJob, lora_model_id
from groundqa.lm.finetune.records import TrainRecord, records_from_chat

__all__ = [
    "Adapter", "AdapterInfo", "EmbeddedProvider", "EmbeddedTrainingJob", "StepReport", "TrainRecord", "TrainResult",
    "adapter_sha256", "lora_model_id", "records_from_chat", "train_lora", "verify_adapter", "write_adapter_gguf",
]
