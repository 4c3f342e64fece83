"""MASE training: trainers, events, checkpoints and the `mase` command line.

A plain Python library: it never imports Django.
"""
