"""Collaborative writing: planner, writer and polisher compose a post to a brief from a local pool of
sections and blocks, scored by a judge; briefs in data/collaborative_writing."""
