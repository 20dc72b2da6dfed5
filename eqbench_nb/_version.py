"""The package's version, in one place below every other module (the run headers record it; pyproject.toml
reads it for the wheel)."""

__version__ = "0.2.0"
