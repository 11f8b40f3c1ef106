-- @script fenced_set
-- @summary Write a value with the writer's fencing token, refused when a newer token has written the key already.
-- @key data required The data key: a hash {value: the value, fence: the highest fencing token that wrote it}.
-- @arg fence integer The writer's fencing token (acquire with a fence key replies it).
-- @arg value token The value to write (binary-safe, non-empty).
-- @reply 0 A newer fencing token has written data: refused, nothing written.
-- @reply 1 Written: data's value is value and its fence this token (equal tokens may write again).
-- @error ERR A missing or malformed argument, or a fence field that is no integer, named in the message; no write.
-- @error WRONGTYPE The data key is not a hash; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR fenced_set takes exactly 1 key (data), got ' .. #KEYS)
end
local fence, value = ARGV[1], ARGV[2]
if fence == nil or not string.match(fence, '^[1-9]%d*$') or #fence > 15 then
  return redis.error_reply('ERR fenced_set: ARGV[1] fence must be a positive integer'
    .. " (decimal digits, no leading zero, at most 15), got '" .. string.sub(tostring(fence), 1, 32) .. "'")
end
if value == nil or value == '' then
  return redis.error_reply('ERR fenced_set: ARGV[2] value must be a non-empty string')
end

local data = KEYS[1]
local newest = redis.call('HGET', data, 'fence')
if newest and (not string.match(newest, '^[1-9]%d*$') or #newest > 15) then
  return redis.error_reply("ERR fenced_set: the data key's fence field is not a positive integer, got '"
    .. string.sub(newest, 1, 32) .. "'")
end
if newest and tonumber(newest) > tonumber(fence) then
  return 0
end
redis.call('HSET', data, 'value', value, 'fence', fence)
return 1
