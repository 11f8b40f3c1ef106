        if (options.kind != null) return options.kind.attempt(redis, key, token, options);
