"""WebSockets: typed, versioned messages; per-socket views built on each instance."""
