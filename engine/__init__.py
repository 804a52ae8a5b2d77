"""The course's snippet engine: find, hash, run, cache, record and render snippets.

Nothing here imports mkdocs except `engine.hooks`, so the GPU recorder runs
with a bare Python plus torch.
"""
