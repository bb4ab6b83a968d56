"""The model layer: role -> model router, providers, structured output, embeddings."""
