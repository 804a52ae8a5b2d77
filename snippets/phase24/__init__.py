"""Phase 24: PyTorch as the substrate for the grammar MiniGPT port."""
