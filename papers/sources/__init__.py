"""Fetching papers from outside services: clients and fetchers."""
