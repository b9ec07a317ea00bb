"""Diffusion LM inference engine: text, tokens and templates in, filled values and stats out.

Knows nothing of agents; see engine.Engine for the entry point.
"""

from executor_engine.canvas import Vocab
from executor_engine.checkpoint import CheckpointError
from executor_engine.engine import Engine, FillInput, FillOutput
from executor_engine.sampler import ReferenceSampler, Sampler, ThresholdSampler
from executor_engine.template import TemplateError, UnfitValues

__all__ = ["CheckpointError", "Engine", "FillInput", "FillOutput", "ReferenceSampler", "Sampler",
           "TemplateError", "ThresholdSampler", "UnfitValues", "Vocab"]
