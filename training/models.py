"""Models of the Training app."""
