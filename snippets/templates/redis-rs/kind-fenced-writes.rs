«section:scripts»
const GUARDED_SET: &str = r#"«lua:guarded_set»"#;
const FENCED_SET: &str = r#"«lua:fenced_set»"#;
«section:code»

/// Fenced writes: the storage checks that the writer still holds the lock, so a holder paused past
/// its lease (a GC pause, SIGSTOP) cannot overwrite what the next holder wrote. One call each.
impl Lease {
    /// SETs `data` (a string in the lock key's hash slot; its TTL kept) to `value` while the lock
    /// still holds this lease's token: false when it does not, and nothing was written.
    pub fn set_if_held<V: redis::ToRedisArgs>(
        &self,
        con: &mut dyn redis::ConnectionLike,
        data: &str,
        value: V,
    ) -> Result<bool, LockError> {
        let written: i64 = invoke(redis::Script::new(GUARDED_SET).key(&self.key).key(data).arg(&self.token).arg(value), con)?;
        Ok(written == 1)
    }

    /// Writes `value` with this lease's fencing token into the hash `data` ({value, fence}): false
    /// when a newer token has written it already, and nothing was. Needs `LockOptions::fence_key`.
    pub fn set_fenced<V: redis::ToRedisArgs>(
        &self,
        con: &mut dyn redis::ConnectionLike,
        data: &str,
        value: V,
    ) -> Result<bool, LockError> {
        let fence = self.fence.ok_or_else(|| {
            LockError::InvalidArgument(format!("set_fenced on {}: acquire with LockOptions::fence_key for a fencing token", self.key))
        })?;
        let written: i64 = invoke(redis::Script::new(FENCED_SET).key(data).arg(fence).arg(value), con)?;
        Ok(written == 1)
    }
}
