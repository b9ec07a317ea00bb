"""`agentpair bench ...`: benchmarks that print JSON; their figures go to docs/benchmarks.md."""
