"""Training the executor's models and scoring them on held-out fills: data encoding (`data`), the
training loop (`train`), evaluation (`evaluate`). Inference (executor_engine's other modules) never
imports from here."""
