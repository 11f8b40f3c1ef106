«section:scripts»
GUARDED_SET = """«lua:guarded_set»"""
FENCED_SET = """«lua:fenced_set»"""
«section:lease»

    # Fenced writes: the storage checks the writer, so a holder paused past its lease (a GC pause,
    # SIGSTOP) cannot overwrite what the next holder wrote. Where the data lives in Redis, one call.
    async def set_if_held(self, data_key: str, value: Union[str, bytes]) -> bool:
        """SETs data_key (a string in the lock's hash slot; its TTL kept) to value only while this
        lease holds the lock; False, and nothing written, once it does not (expired, taken, released)."""
        if self._kind is not _PLAIN:
            raise ValueError(f"set_if_held works on a plain lock's lease; {self.key} is held by no single token")
        return int(await _call(self.client, GUARDED_SET, [self.key, data_key], [self.token, value])) == 1

    async def set_fenced(self, data_key: str, value: Union[str, bytes]) -> bool:
        """Writes value with this lease's fencing token into the hash data_key ({value, fence}, any
        slot); False, and nothing written, when a newer token has written it already."""
        if self.fence is None:
            raise ValueError(f"set_fenced needs a fencing token: acquire {self.key} with fence_key")
        return int(await _call(self.client, FENCED_SET, [data_key], [self.fence, value])) == 1
