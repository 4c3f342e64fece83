"""Research-report workflow (seed 001 §6): corpus, 4-dimension judge, the PettingZoo env, scripted agents."""
