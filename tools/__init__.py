"""Tools an agent acts with (a browser driven by Playwright, typed functions): they know nothing of
models. Installed as agentpair.tools."""
