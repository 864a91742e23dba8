"""The delivery contract: whether an answer may be shown to a user at all.

Deterministic mechanical checks come first, then an LLM audit against a strict schema.
The public result carries error codes only, never model or exception text.
"""
