"""E-commerce customer-service workflow (seed 000 §4.1).

Modules: `tickets` (intent catalogue, generator, loader), `env` (CustomerServiceEnv), `rules` (keyword
baseline router and rule-scripted agents), `randomisation` (domain-randomisation wrapper).
"""
