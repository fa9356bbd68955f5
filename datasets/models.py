"""Models of the Trajectories app."""
