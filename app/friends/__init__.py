"""Friends: requests, friendships and blocks in SQL (``store``), presence and
invitations in Redis (``hub``, ``invites``), the HTTP routes (``api``)."""
