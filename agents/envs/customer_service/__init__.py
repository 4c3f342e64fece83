"""E-commerce customer-service workflow (docs/design.md#customer-service).

Modules: `tickets` (intent catalogue, generator, loader), `roster` (the team as data: specialists owning
intents, reviewers, coverage problems in words), `env` (CustomerServiceEnv), `rules` (keyword baseline
router and rule-scripted agents), `randomisation` (domain-randomisation wrapper).
"""
