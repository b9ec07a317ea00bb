"""Bundled browser-agent scenarios: loading and serving them (loader) and running one with an agent (runner)."""

from agentpair.scenarios.loader import (SCENARIOS_DIR, Scenario, ScenarioError, ScenarioServer, Verdict, list_names,
                                        load)

__all__ = ["SCENARIOS_DIR", "Scenario", "ScenarioError", "ScenarioServer", "Verdict", "list_names", "load"]
