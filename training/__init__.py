"""Training of the computer players' learned parts (optional: needs the ``train`` extra).

``selfplay``: hands of the project's own computers, recorded as their moves; ``beliefs_data``:
one seat's view features and the true card locations at every position of those hands;
``beliefs_train``: fits the beliefs model (``app/bots/beliefs.py``) and writes its weights.
"""
