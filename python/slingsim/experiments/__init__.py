"""Experiment recipes shared by the CLI and the API: each module runs one study end to end."""
