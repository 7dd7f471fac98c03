"""Bytes and decoding: characters as UTF-8 bytes, stray bytes, ids back to text (``utf8``).
"""
