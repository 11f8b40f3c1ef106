
/// Takes a lock of a kind other than the plain lock with its `acquire` script (keys: the lock;
/// args: the token, the lease in ms, then `args`), waiting as `Lease::acquire_with` does.
fn acquire_kind(
    con: &mut dyn redis::ConnectionLike,
    key: &str,
    options: &LockOptions,
    (name, kind): (&str, Kind),
    token: String,
    (acquire, args): (&str, &[u64]),
) -> Result<Lease, LockError> {
    if options.fence_key.is_some() {
        return Err(LockError::InvalidArgument(format!("fence_key works with a plain lock, not a {name}")));
    }
    let ttl_ms = options.ttl_ms()?;
    let script = redis::Script::new(acquire);
    let mut invocation = script.key(key);
    invocation.arg(&token).arg(ttl_ms).arg(args);
    take(con, key, options, kind, &mut |con| Ok((invoke(&invocation, con)?, None)))?;
    Lease::held(kind, key, token, None, options)
}
