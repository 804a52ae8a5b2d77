"""The base every stage stands on: files written whole, the paths and knobs of settings.py, Python files parsed
once, folders of cache entries."""
