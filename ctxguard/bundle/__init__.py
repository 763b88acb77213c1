"""The bundle an agent reads: its model, how it is written (and sized), rendered, split into chunks, put on disk."""
