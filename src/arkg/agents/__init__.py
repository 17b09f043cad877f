"""Question-answering strategies: ARK-V1 (`ark`), chain-of-thought baselines (`cot`)."""
