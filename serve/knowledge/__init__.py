"""The operator's knowledge base: entries on disk (entries.py), indexed and searched at run time (base.py)."""
