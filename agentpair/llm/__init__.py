"""Talking to language models: one OpenAI-compatible endpoint asked for JSON (endpoint), and llama.cpp's
server run locally (llamacpp, and the server process itself: llamacpp_server)."""
