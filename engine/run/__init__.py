"""Run a snippet call at most once: in this process, in a fork of a server that has imported torch, or in a
fresh child; cached on disk."""
