"""Models of the KOPA-Bench app."""
