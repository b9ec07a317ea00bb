"""Training data made from synthetic pages rendered by the browser tool: executor examples (tool
calls, extractions, code templates; see build.py) and planner examples (plans per page; plans.py)."""
