"""Tests of Godot resource and scene files."""
