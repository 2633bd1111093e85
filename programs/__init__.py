"""DSPy programs: retrieval, premise verification, cited synthesis and the GroundedQA pipeline."""
