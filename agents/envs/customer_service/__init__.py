"""E-commerce customer-service workflow (docs/design.md#customer-service).

Modules: `tickets` (intent catalogue, generator, loader), `env` (CustomerServiceEnv), `rules` (keyword
baseline router and rule-scripted agents), `randomisation` (domain-randomisation wrapper).
"""
