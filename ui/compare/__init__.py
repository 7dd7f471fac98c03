"""Compare with GPT: counts, coloured views and where cuts differ (``cuts``).
"""
