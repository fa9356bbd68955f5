"""Helpers shared by tests: test-only job kinds and users with roles."""
