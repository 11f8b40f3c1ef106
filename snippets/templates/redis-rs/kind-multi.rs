«section:scripts»
const MULTI_ACQUIRE: &str = r#"«lua:multi_acquire»"#;
const MULTI_EXTEND: &str = r#"«lua:multi_extend»"#;
const MULTI_RELEASE: &str = r#"«lua:multi_release»"#;
«section:code»

const MULTI: Kind = Kind { holders: "another owner", extend: MULTI_EXTEND, release: MULTI_RELEASE };

/// Several plain locks held together under one token (`Lease::acquire_multi`). A lease dropped
/// without release stops renewing and its keys expire after their TTL.
pub struct MultiLease {
    /// The lock keys, in the order taken (by bytes).
    keys: Vec<String>,
    token: String,
    lost: Arc<AtomicBool>,
    renewer: Option<Renewer>,
}

impl Lease {
    /// Takes every lock in `keys`, all or none (the "move money between two accounts" lock), under
    /// one token, waiting up to `options.wait` as `acquire_with` does (for a busy key's release or
    /// its lease's end), then `LockError::Busy` naming a busy key. One multi_acquire call takes them all or none, so no caller waits holding part of its
    /// keys and overlapping key sets cannot deadlock. On one server any keys; a Cluster takes keys of
    /// one hash slot only (one {hash tag}): keys across its slots are refused, nothing taken.
    pub fn acquire_multi(
        con: &mut dyn redis::ConnectionLike,
        keys: &[&str],
        options: &LockOptions,
    ) -> Result<MultiLease, LockError> {
        let ttl_ms = options.ttl_ms()?;
        let keys = multi_keys(keys)?;
        if options.fence_key.is_some() {
            return Err(LockError::InvalidArgument("fence_key works with a plain lock, not a multi-key lock".into()));
        }
        let token = owner_token(&format!("{:016x}", random_u64()));
        let script = redis::Script::new(MULTI_ACQUIRE);
        let mut invocation = script.prepare_invoke();
        invocation.key(&keys).arg(&token).arg(ttl_ms);
        let deadline = Instant::now() + options.wait;
        let mut waiting_for = keys[0].clone();
        loop {
            // take() waits for one key: a try that finds another busy (2) ends it for a wait on that one.
            let left = deadline.saturating_duration_since(Instant::now());
            let mut busy = None;
            let taken = take(con, &waiting_for, &options.clone().wait(left), MULTI, &mut |con| {
                busy = multi_attempt(con, &invocation, &keys)?;
                Ok(match &busy {
                    None => (1, None),
                    Some((key, _)) if *key != waiting_for => (2, None),
                    Some((_, pttl)) => (0, Some(*pttl)),
                })
            });
            let busy_error = |key| LockError::Busy { key, waited: options.wait, holders: MULTI.holders };
            taken.map_err(|error| match error {
                LockError::Busy { key, .. } => busy_error(key),
                other => other,
            })?;
            match busy {
                None => return MultiLease::held(keys, token, ttl_ms, options),
                Some((key, _)) if left.is_zero() => return Err(busy_error(key)),
                Some((key, _)) => waiting_for = key,
            }
        }
    }

    /// One try, never waits: `Some(lease)` holding every key, or `None` (none taken) while a key is busy.
    pub fn try_acquire_multi(
        con: &mut dyn redis::ConnectionLike,
        keys: &[&str],
        options: &LockOptions,
    ) -> Result<Option<MultiLease>, LockError> {
        match Self::acquire_multi(con, keys, &options.clone().wait(Duration::ZERO)) {
            Err(LockError::Busy { .. }) => Ok(None),
            taken => taken.map(Some),
        }
    }
}

/// The keys, each once and none empty, ordered by bytes.
fn multi_keys(keys: &[&str]) -> Result<Vec<String>, LockError> {
    let mut ordered: Vec<String> = keys.iter().map(|key| key.to_string()).collect();
    ordered.sort();
    if ordered.is_empty() {
        return Err(LockError::InvalidArgument("acquire_multi needs one or more lock keys, got none".into()));
    }
    if ordered.iter().any(String::is_empty) {
        return Err(LockError::InvalidArgument("acquire_multi got an empty lock key".into()));
    }
    if let Some(twice) = ordered.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(LockError::InvalidArgument(format!(
            "acquire_multi got the lock key {:?} twice: give each key once",
            twice[0]
        )));
    }
    Ok(ordered)
}

/// One multi_acquire call: None once every key holds the token, else a busy key and its holder's PTTL.
fn multi_attempt(
    con: &mut dyn redis::ConnectionLike,
    invocation: &redis::ScriptInvocation<'_>,
    keys: &[String],
) -> Result<Option<(String, i64)>, LockError> {
    let (held, at, pttl): (i64, i64, i64) = invoke(invocation, con).map_err(|error| {
        if error.code() == Some("CROSSSLOT") {
            LockError::InvalidArgument(format!(
                "acquire_multi takes keys of one hash slot on a Cluster (give them one {{hash tag}}), got {}: nothing taken",
                keys.join(", ")
            ))
        } else {
            LockError::Redis(error)
        }
    })?;
    let busy = usize::try_from(at - 1).ok().and_then(|at| keys.get(at)).unwrap_or(&keys[0]);
    Ok((held != 1).then(|| (busy.clone(), pttl)))
}

/// Runs multi_extend (with `ttl_ms`) or multi_release: true when the token held every key.
fn on_every_key(
    script: &str,
    con: &mut dyn redis::ConnectionLike,
    keys: &[String],
    token: &str,
    ttl_ms: Option<u64>,
) -> Result<bool, LockError> {
    let script = redis::Script::new(script);
    let held: usize = invoke(script.prepare_invoke().key(keys).arg(token).arg(ttl_ms), con)?; // a None adds no arg
    Ok(held == keys.len())
}

impl MultiLease {
    fn held(keys: Vec<String>, token: String, ttl_ms: u64, options: &LockOptions) -> Result<Self, LockError> {
        let (lost, renewed) = (Arc::new(AtomicBool::new(false)), (keys.clone(), token.clone()));
        let extend: Extend = Box::new(move |con| on_every_key(MULTI_EXTEND, con, &renewed.0, &renewed.1, Some(ttl_ms)));
        let renewer = options.renew_with.as_ref().map(|client| renew(client, ttl_ms, &lost, extend)).transpose()?;
        Ok(MultiLease { keys, token, lost, renewer })
    }

    /// The lock keys, ordered by bytes.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// This holder's owner token: every lock key's value while it is held.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// True once a renewal found a key gone or failed: stop writing.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    /// Sets the lease of every key still held to `ttl` from now; true only when the token held them all.
    pub fn extend(&self, con: &mut dyn redis::ConnectionLike, ttl: Duration) -> Result<bool, LockError> {
        on_every_key(MULTI_EXTEND, con, &self.keys, &self.token, Some(whole_ms("ttl", ttl, 1)?))
    }

    /// Stops renewing and deletes every key this lease still holds; `LockError::LeaseLost` (naming
    /// the keys) when it no longer held them all.
    pub fn release(mut self, con: &mut dyn redis::ConnectionLike) -> Result<(), LockError> {
        if let Some((stop, renewer)) = self.renewer.take() {
            drop(stop);
            let _ = renewer.join(); // a renewal in flight ends before the release
        }
        if on_every_key(MULTI_RELEASE, con, &self.keys, &self.token, None)? {
            Ok(())
        } else {
            Err(LockError::LeaseLost { key: self.keys.join(", ") })
        }
    }
}
