«section:scripts»
const READ_ACQUIRE: &str = r#"«lua:read_acquire»"#;
const WRITE_ACQUIRE: &str = r#"«lua:write_acquire»"#;
const RW_EXTEND: &str = r#"«lua:rw_extend»"#;
const RW_RELEASE: &str = r#"«lua:rw_release»"#;
«section:code»
«include-once:redis-rs/kind-common»

const READ: Kind = Kind { holders: "a writer", extend: RW_EXTEND, release: RW_RELEASE };
const WRITE: Kind = Kind { holders: "readers or another writer", extend: RW_EXTEND, release: RW_RELEASE };
/// How long a waiting writer keeps new readers out unless it tries again: twice the longest back-off.
const WRITE_INTENT_MS: u64 = 1000;

impl Lease {
    /// Takes a read lease of the read-write lock `key`: held with other readers, never with a
    /// writer, and not while a writer waits (so readers cannot starve it).
    pub fn acquire_read(con: &mut dyn redis::ConnectionLike, key: &str, options: &LockOptions) -> Result<Lease, LockError> {
        let token = owner_token(&format!("{:016x}", random_u64()));
        acquire_kind(con, key, options, ("read lock", READ), token, (READ_ACQUIRE, &[]))
    }

    /// Takes the write lease of the read-write lock `key`: alone, no reader and no other writer.
    pub fn acquire_write(con: &mut dyn redis::ConnectionLike, key: &str, options: &LockOptions) -> Result<Lease, LockError> {
        let token = owner_token(&format!("{:016x}", random_u64()));
        acquire_kind(con, key, options, ("write lock", WRITE), token, (WRITE_ACQUIRE, &[WRITE_INTENT_MS]))
    }
}
