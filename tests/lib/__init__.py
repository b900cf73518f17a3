"""Helpers shared by the tests and the benches (the benches import these, never the reverse)."""
