"""Replay a traced run through the real loop (drive), with recorded stand-ins (recorded)."""
