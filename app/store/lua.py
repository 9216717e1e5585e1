"""Lua scripts. Each one is a single atomic step on the Redis server.

Lua only compares integers and stores opaque blobs: decoding JSON inside Redis would cap it
far below what the app needs; the rules stay in Python.
"""

# Compare-and-set one table: version check, state SET, event-log append and trim, the game's
# move list, due-time index update, lobby summary update, results records, PUBLISH. One
# EVALSHA per move.
#
# The results records (finished hands and games, for SQL) are XADDed here, in the same atomic
# step as the move that produced them: an instance that dies after the commit cannot lose one.
# Every key is in the table's slot (app.store.keys): the table's own keys and its shard's due
# set, lobby hash and results stream share the shard's hash tag, so the script runs as it is
# on one Redis and on Redis Cluster. The lobby channel is a global channel (every instance).
#
# KEYS: 1 version, 2 state, 3 log, 4 the shard's due set, 5 the shard's lobby hash,
#       6 game moves list, 7 the shard's results stream
# ARGV: 1 expected version, 2 state blob ('' keeps the stored one), 3 log entry / message,
#       4 log length cap, 5 ttl seconds, 6 table channel, 7 table id,
#       8 due ('' keep, '-' remove, else score in ms),
#       9 lobby summary ('' keep, '-' remove, else JSON), 10 lobby channel,
#       11 '1' to empty the move list first (a new game), 12 number of moves M,
#       13 number of records R, then M move entries, then R records.
# Returns {1, new_version} or {0, current_version}.
COMMIT = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur ~= tonumber(ARGV[1]) then
  return {0, cur}
end
local new = cur + 1
local ttl = tonumber(ARGV[5])
redis.call('SET', KEYS[1], new, 'EX', ttl)
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ttl)
else
  redis.call('EXPIRE', KEYS[2], ttl)
end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[4]), -1)
redis.call('EXPIRE', KEYS[3], ttl)
if ARGV[11] == '1' then
  redis.call('DEL', KEYS[6])
end
local nmoves = tonumber(ARGV[12])
local nrecords = tonumber(ARGV[13])
for i = 1, nmoves do
  redis.call('RPUSH', KEYS[6], ARGV[13 + i])
end
redis.call('EXPIRE', KEYS[6], ttl)
for i = 1, nrecords do
  redis.call('XADD', KEYS[7], '*', 'event', ARGV[13 + nmoves + i])
end
if ARGV[8] == '-' then
  redis.call('ZREM', KEYS[4], ARGV[7])
elseif ARGV[8] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[8], ARGV[7])
end
if ARGV[9] == '-' then
  if redis.call('HDEL', KEYS[5], ARGV[7]) > 0 then
    redis.call('PUBLISH', ARGV[10], ARGV[7])
  end
elseif ARGV[9] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[7], ARGV[9])
  redis.call('PUBLISH', ARGV[10], ARGV[7])
end
redis.call('SPUBLISH', ARGV[6], ARGV[3])
return {1, new}
"""

# Claim due items: every member whose time has come is pushed forward by a lease, so only
# this caller sees it now; if the caller dies before acting, the lease runs out and another
# instance claims it again. Nothing is lost and nothing is taken twice at once.
# Run on each shard's set (app.store.table_store.claim_due).
# KEYS: 1 one shard's due set. ARGV: 1 now (ms), 2 lease end (ms), 3 limit.
CLAIM_DUE = """
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(items) do
  redis.call('ZADD', KEYS[1], ARGV[2], m)
end
return items
"""

# Set a table's due time only if the table is still at the version the caller read, so a
# stale reader never overwrites the due time a newer commit wrote.
# KEYS: 1 version, 2 the table's shard's due set (one slot).
# ARGV: 1 expected version, 2 table id, 3 due ('-' or score).
SET_DUE_IF_VERSION = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur ~= tonumber(ARGV[1]) then
  return 0
end
if ARGV[3] == '-' then
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
end
return 1
"""

# Take a table out of Redis altogether: its keys and its due item (a competition's table that
# its maker made in vain, another having made the same seat's table: app.tables.compete).
# KEYS: 1 version, 2 state, 3 log, 4 moves, 5 the table's shard's due set (one slot).
# ARGV: 1 table id.
DISCARD = """
local n = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[5], ARGV[1])
return n
"""
