"""Competition on ordinary tables: the daily duplicate challenge (same deals for everyone,
matchpoints per deal version, day and month leaderboards).

- ``app.compete.scoring``: matchpoints and percentages (pure);
- ``app.compete.deals``: the day's deals from a server secret and the date (pure);
- ``app.compete.store``: the SQL side (attempts, results, score counts, leaderboards);
- ``app.compete.replays``: one deal of a game replayed, and the Expert's par on it;
- ``app.compete.daily``: the service the routes call; ``app.compete.api``: the routes.
"""
