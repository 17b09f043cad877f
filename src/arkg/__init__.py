"""arkg: knowledge-graph question answering with grounded LLM agents."""
__version__ = "0.1.0"
