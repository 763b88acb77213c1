"""The cut engine: it knows no kind. Tiers, the packer and its choice of units, streaming, probes, previews."""
