"""s2sad's GradBench tool: `run.py` speaks the protocol, one module per eval."""
