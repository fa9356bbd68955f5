"""Plain-Python engines of KOPA-Bench: task files, answer checkers, the agent runner and its backends, metrics.

Nothing here imports Django, and nothing imports torch or transformers at module import time (only the
transformers backend does, inside its functions), so the web and queue processes can import every module.
"""
