"""Notifications: producers say "player P, kind K, about table T"; ``Notifier`` decides by the
player's preferences and presence (a push only when the player has no socket on that table)
and delivers through the channels (Web Push, e-mail), each off the event loop."""

from app.notify.service import KINDS, Notice, Notifier

__all__ = ["KINDS", "Notice", "Notifier"]
