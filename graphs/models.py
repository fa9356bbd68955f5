"""Models of the EDGE graph app."""
