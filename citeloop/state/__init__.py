"""State schemas, one module per graph."""
