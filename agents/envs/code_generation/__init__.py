"""Code generation: architect, implementer, tester and code reviewer ship small Python functions whose
hidden tests run in a sandboxed process (`sandbox`); tasks in data/code_generation."""
