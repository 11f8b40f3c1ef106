«section:scripts»
  GUARDED_SET = <<~'LUA'
«lua:guarded_set»  LUA
  FENCED_SET = <<~'LUA'
«lua:fenced_set»  LUA
«section:lease»

    # Sets the string data_key to value (its TTL kept) only while this lease still holds the lock, in
    # one call: false when it lapsed or another owner took it, and nothing was written. data_key must
    # be in the lock's hash slot (in Cluster, with the lock key's {hash tag}).
    def set_if_held(data_key, value)
      raise ArgumentError, "set_if_held works on a plain lock's lease; #{@key} is another kind of lock" unless @release_lua.equal?(RELEASE)

      Locksmith.run(@redis, GUARDED_SET, [@key, data_key], [@token, value]) == 1
    end

    # Writes value into the hash data_key ({value, fence}) with this lease's fencing token, in any slot:
    # false when a newer token has written it already, and nothing was written.
    def set_fenced(data_key, value)
      raise ArgumentError, "set_fenced needs a fencing token: acquire #{@key} with a fence_key" if @fence.nil?

      Locksmith.run(@redis, FENCED_SET, [data_key], [@fence, value]) == 1
    end
