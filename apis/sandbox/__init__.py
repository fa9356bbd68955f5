"""Offline emulation of Korean public APIs: same hosts, paths, parameters, envelopes and errors as live.

The engine (engine.handle) is plain Python; views.py and server.py are two thin ways to serve it.
"""
