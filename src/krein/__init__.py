"""krein: learning with indefinite (Kreĭn-space) kernels and with learned kernels."""

__version__ = "0.1.0"
