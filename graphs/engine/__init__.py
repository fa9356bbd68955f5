"""EDGE engines: candidate matching, binding transforms, posteriors and sampling (plain Python, no Django)."""
