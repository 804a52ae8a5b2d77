"""Lab 00: hello CUDA, the toolchain check."""
