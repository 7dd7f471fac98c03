"""SentencePiece-style BPE: character pieces, ``▁`` for whitespace, byte fallback, scores."""
