"""Annotation views, one module per feature; urls.py wires them up."""
