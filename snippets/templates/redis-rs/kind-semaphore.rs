«section:scripts»
const SEMAPHORE_ACQUIRE: &str = r#"«lua:semaphore_acquire»"#;
const SEMAPHORE_EXTEND: &str = r#"«lua:semaphore_extend»"#;
const SEMAPHORE_RELEASE: &str = r#"«lua:semaphore_release»"#;
«section:code»
«include-once:redis-rs/kind-common»

const SEMAPHORE: Kind =
    Kind { holders: "the other holders of its permits", extend: SEMAPHORE_EXTEND, release: SEMAPHORE_RELEASE };

impl Lease {
    /// Takes one of `permits` permits of the semaphore `key`, with a lease of its own (a holder
    /// that dies gives its permit back when its lease ends). Every caller passes the same `permits`
    /// while any is held.
    pub fn acquire_semaphore(
        con: &mut dyn redis::ConnectionLike,
        key: &str,
        permits: u32,
        options: &LockOptions,
    ) -> Result<Lease, LockError> {
        if permits == 0 {
            return Err(LockError::InvalidArgument("acquire_semaphore needs at least 1 permit, got 0".into()));
        }
        let token = owner_token(&format!("{:016x}", random_u64()));
        acquire_kind(con, key, options, ("semaphore", SEMAPHORE), token, (SEMAPHORE_ACQUIRE, &[u64::from(permits)]))
    }
}
