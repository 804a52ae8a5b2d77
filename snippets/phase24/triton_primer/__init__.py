"""Triton's programming model in small steps: program ids, blocks, masks, constexpr, grids, autotuning."""
