"""The grammar MiniGPT: a 600-token grammar, its tokenizer, a NumPy reference and its PyTorch port."""
