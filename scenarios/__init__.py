"""The bundled browser-agent scenarios (data only): one folder each, a scenario.toml and its site/."""
