"""Executors fill what a plan step leaves open: the protocol (protocol), an OpenAI-compatible endpoint
(openai), the local diffusion model (local) and its autoregressive baseline (ar); the last two load
torch, so import them from their modules."""

from agentpair.executor.openai import OpenAIExecutor
from agentpair.executor.protocol import Executor

__all__ = ["Executor", "OpenAIExecutor"]
