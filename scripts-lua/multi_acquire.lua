-- @script multi_acquire
-- @summary Take several plain locks all or nothing: each key free or held by this token gets it, else none changes.
-- @key locks... required The lock keys, one or more, all in one hash slot: strings holding the owner token while held.
-- @arg token token Owner token, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds for every key: a positive integer, no leading zero, at most 15 digits.
-- @reply {1,0,0} Every key holds this token now, with the lease (new, or renewed where it already held it).
-- @reply {0,N,P} KEYS[N] is held by another owner for P more ms (-1: no TTL): nothing changed.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE A lock key is not a string; nothing was written.

if #KEYS < 1 then
  return redis.error_reply('ERR multi_acquire takes 1 or more keys (the locks), got 0')
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR multi_acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR multi_acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

-- Every key is read before any is written: a busy key, or one of another type, leaves all as they were.
for i, lock in ipairs(KEYS) do
  local holder = redis.call('GET', lock)
  if holder and holder ~= token then
    return { 0, i, redis.call('PTTL', lock) }
  end
end
for _, lock in ipairs(KEYS) do
  redis.call('SET', lock, token, 'PX', ttl)
end
return { 1, 0, 0 }
