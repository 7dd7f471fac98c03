"""Variants of BPE: the classic trainer against its variants on one text (``comparison``).
"""
