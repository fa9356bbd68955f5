"""One module per API family; every module here is imported by registry.load_families()."""
