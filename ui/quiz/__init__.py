"""Predict the next merge: questions and scoring (``questions``) and the quiz as a page draws it
(``panel``), in the lesson, on Step through and in a class.
"""
