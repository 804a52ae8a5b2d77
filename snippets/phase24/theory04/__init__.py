"""Theory 04: PyTorch as substrate (tensors, modules, dispatch, the MiniGPT port)."""
