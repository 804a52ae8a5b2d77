"""GPU outputs: recordings stored with their provenance, and `python -m engine.gpu.record`, which makes them."""
