"""Training data generation (datagen/) and the planner's LoRA fine-tuning (planner_lora)."""
