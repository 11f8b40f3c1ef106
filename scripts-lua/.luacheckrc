-- Redis runs each script with these globals (EVAL / EVALSHA, Lua 5.1).
std = "lua51"
read_globals = { "redis", "KEYS", "ARGV", "cjson", "cmsgpack", "bit", "struct" }
max_line_length = 120
