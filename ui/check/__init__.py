"""Check your BPE: what ``bpe_lab.check`` found, as tables and sentences (``findings``).
"""
