"""The one tokenizer seam: the protocols (base), tiktoken's exact counts (exact), loading the
shipped encodings (load), and their ranks kept for a fast start (ranks_cache)."""
