"""One way through the config: parse (YAML) -> check (each value) -> model (frozen types); load reads a file."""
