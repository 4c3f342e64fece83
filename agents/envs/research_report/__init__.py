"""Research-report workflow (docs/design.md#research-report): corpus, 4-dimension judge, the PettingZoo env, scripted agents."""
