"""Runs on a Ray cluster (the optional `ray` extra): agentpair.cluster.ray_runs."""
