"""The communication layer: semantic compression, wire format, priority channels, gossip, auctions.

Seed 000 §2.1, §3.1, §5.2. Every component exposes `stats()` as a plain dict so a trainer or the runtime
can emit it as a `metrics` event; the codebook-drift monitor returns `alert` payloads.
"""
