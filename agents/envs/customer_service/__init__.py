"""The routing environment: e-commerce customer service by default, any intent catalogue a spec declares
(docs/design.md#customer-service).

Modules: `catalogue` (intents, their descriptions, keywords and actions; the shipped eight), `tickets`
(the generator of the shipped catalogue's tickets, the loader of any dataset), `roster` (the team as data:
specialists owning intents, reviewers, coverage problems in words), `params` and `env`
(CustomerServiceEnv), `rules` (keyword router, rule-scripted agents; rules for a catalogue of one's own),
`fallback` (the spec's keyword-router fallback), `replies` (reply templates), `randomisation`
(domain-randomisation wrapper) and `interface`: everything training, serving and the web ask of this
environment, through `agents.envs.routing` — nothing outside this package imports it.
"""
