"""MASE agents: team specs, the shared backbone, per-agent adapters, communication, environments.

A plain Python library: it never imports Django.
"""
