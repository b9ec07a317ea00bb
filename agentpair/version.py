"""agentpair's version, apart from the package so that any module may read it."""

__version__ = "0.1.0"
