"""Benchmark, load and fault tooling: synthetic corpus, latency benchmark, load run, fault runs."""
