"""Models of the API catalog app."""
