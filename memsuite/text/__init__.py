"""Layer 2, text: tokens in Chinese and English, stemming, BM25 weights, Markdown, citations."""
