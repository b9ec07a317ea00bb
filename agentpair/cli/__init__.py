"""The `agentpair` command line (main), one module per group of commands; nothing imports it."""
