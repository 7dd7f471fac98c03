"""Chat tokens: a conversation wrapped as a model reads it, drawn with its counts (``panel``).
"""
