"""The interactive support workflow: a team that clarifies, searches, answers, reviews or escalates in a
conversation with a simulated customer (`env.InteractiveSupportEnv`), its customers and knowledge base
(`world`), and the procedures a support lead would script, with their evaluation (`baselines`)."""
