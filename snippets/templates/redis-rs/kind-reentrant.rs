«section:scripts»
const REENTRANT_ACQUIRE: &str = r#"«lua:reentrant_acquire»"#;
const REENTRANT_EXTEND: &str = r#"«lua:reentrant_extend»"#;
const REENTRANT_RELEASE: &str = r#"«lua:reentrant_release»"#;
«section:code»
«include-once:redis-rs/kind-common»

const REENTRANT: Kind = Kind { holders: "another owner", extend: REENTRANT_EXTEND, release: REENTRANT_RELEASE };

impl Lease {
    /// Takes the reentrant lock of `owner` (unique to your caller, e.g. a job id): while it holds
    /// the lock, another `acquire_reentrant` by the same owner takes it again, and each take needs
    /// its own release; the last release frees it.
    pub fn acquire_reentrant(
        con: &mut dyn redis::ConnectionLike,
        key: &str,
        owner: &str,
        options: &LockOptions,
    ) -> Result<Lease, LockError> {
        if owner.is_empty() {
            return Err(LockError::InvalidArgument("acquire_reentrant needs an owner, got an empty one".into()));
        }
        let kind = ("reentrant lock", REENTRANT);
        acquire_kind(con, key, options, kind, owner_token(owner), (REENTRANT_ACQUIRE, &[]))
    }
}
