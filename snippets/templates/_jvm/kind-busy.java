                if (leftMs <= 0 && options.kind != null) throw new LockBusyException(key, options.waitMs, options.kind.holders());
