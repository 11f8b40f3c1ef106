-- @script guarded_set
-- @summary Write a value only while the lock holds the writer's token, in one call: a lapsed holder writes nothing.
-- @key lock required The plain lock key: a string holding the owner token while held.
-- @key data required The string key to write, in the lock's hash slot; its TTL is kept.
-- @arg token token The owner token the lock was acquired with.
-- @arg value token The value to write (binary-safe, non-empty).
-- @reply 0 The lock does not hold this token (expired, released, or taken by another owner): nothing written.
-- @reply 1 The lock holds this token: data holds value now.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock or the data key is not a string; nothing was written.

if #KEYS ~= 2 then
  return redis.error_reply('ERR guarded_set takes exactly 2 keys (lock, data), got ' .. #KEYS)
end
local token, value = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR guarded_set: ARGV[1] token must be a non-empty string')
end
if value == nil or value == '' then
  return redis.error_reply('ERR guarded_set: ARGV[2] value must be a non-empty string')
end

local lock, data = KEYS[1], KEYS[2]
local holder = redis.call('GET', lock)
redis.call('GET', data)
if holder ~= token then
  return 0
end
redis.call('SET', data, value, 'KEEPTTL')
return 1
