"""citeloop: LangGraph workflows that make LLM answers grounded."""
