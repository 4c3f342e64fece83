"""Serving a trained team: the inference runtime with its decision log, and the circuit breaker that
hands decisions to a rule fallback. It sits above `training` (it loads a trained policy) and below the
web layer; like the rest of the library it never imports Django."""
