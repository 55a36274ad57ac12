"""Shared test builders and fakes."""
