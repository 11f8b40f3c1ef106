«section:about»
// With the wake-ups part a waiter waits in line (first come, first served) and sleeps until the
// release wakes it (a sharded subscription to the lock key, RedisChannel.Sharded, on the
// multiplexer's subscriber connection), the holder's lease ends, or the retry bound passes.
«section:scripts»
    internal const string AcquireQueuedScript = """
«lua:acquire_queued»
""";
«section:wait»
        // In line (first come, first served), woken by the release: see RedisLockWakeups.
        await using var wakeups = reply == 0 && waitFor > TimeSpan.Zero
            ? await RedisLockWakeups.SubscribeAsync(db, key, token, retryMs, cancellationToken)
            : null;
        if (wakeups is not null)
        {
            sleep = wakeups.SleepAsync;
            if (RedisLockWakeups.WaitersKey(key) is { } queue)
            {
                var queuedKeys = fenceKey is { } queuedFence ? new[] { key, queue, queuedFence } : new[] { key, queue };
                var queueMs = (long)waitFor.TotalMilliseconds + 2 * retryMs; // a queue of dead waiters ends by itself
                tryOnce = async () =>
                {
                    // acquire_queued's reply: {reply, the holder's PTTL, waiters}.
                    var queued = await attempt(AcquireQueuedScript, queuedKeys, new RedisValue[] { token, ttlMs, queueMs });
                    wakeups.InLine = (long)queued[0] == 0 ? queue : null;
                    return ((long)queued[0], (long)queued[1]);
                };
            }
            // The release may have gone out before the subscription: try again at once.
            (reply, pttl) = await tryOnce();
        }
«section:release»
        // Its first waiter in line is woken by its token.
        if (RedisLockWakeups.WaitersKey(Key) is { } line) keys = new[] { Key, line };
«section:code»

/// <summary>
/// A waiter's wake-ups: a sharded subscription to the lock key on the multiplexer's subscriber
/// connection. The scripts that free a lock SPUBLISH on its name: an empty payload (one waiter per
/// client), "*" (all) or the token of the waiter to wake (the first in line). Until the subscription
/// is confirmed (or when it fails: a server before 7.0, no channel rights) the timer covers.
/// </summary>
internal sealed class RedisLockWakeups : IAsyncDisposable
{
    private readonly IDatabaseAsync db;
    private readonly ISubscriber subscriber;
    private readonly RedisChannel channel;
    private readonly string token;
    private readonly CancellationToken cancellationToken;
    private readonly SemaphoreSlim woken = new(0, 1);
    private readonly Action<RedisChannel, RedisValue> onWake;

    private RedisLockWakeups(IDatabaseAsync db, RedisKey key, string token, CancellationToken cancellationToken)
    {
        this.db = db;
        subscriber = db.Multiplexer.GetSubscriber();
        channel = RedisChannel.Sharded(key.ToString());
        this.token = token;
        this.cancellationToken = cancellationToken;
        onWake = OnWake;
    }

    /// <summary>The waiter queue this waiter is in until it takes the lock: it leaves it on the way out.</summary>
    internal RedisKey? InLine { get; set; }

    internal static async Task<RedisLockWakeups> SubscribeAsync(
        IDatabaseAsync db,
        RedisKey key,
        string token,
        long retryMs,
        CancellationToken cancellationToken)
    {
        var wakeups = new RedisLockWakeups(db, key, token, cancellationToken);
        try
        {
            await wakeups.subscriber.SubscribeAsync(wakeups.channel, wakeups.onWake).WaitAsync(TimeSpan.FromMilliseconds(retryMs), cancellationToken);
        }
        catch (Exception error) when (error is RedisException or TimeoutException)
        {
            // no wake-ups: the retry bound covers
        }
        catch
        {
            await wakeups.DisposeAsync();
            throw;
        }
        return wakeups;
    }

    /// <summary>
    /// The waiter queue of a plain lock, in its hash slot: lock:{order:42} -> lock:{order:42}:waiters,
    /// lock:order:42 -> {lock:order:42}:waiters; null for a key with '}' and no hash tag.
    /// </summary>
    internal static RedisKey? WaitersKey(RedisKey key)
    {
        var name = key.ToString();
        var open = name.IndexOf('{');
        if (open >= 0 && name.IndexOf('}', open + 1) > open + 1) return name + ":waiters";
        if (name.Contains('}')) return null;
        return "{" + name + "}:waiters";
    }

    /// <summary>Sleeps <paramref name="ms"/> milliseconds, or less when the release wakes this waiter.</summary>
    internal Task SleepAsync(long ms) => woken.WaitAsync(TimeSpan.FromMilliseconds(ms), cancellationToken);

    public async ValueTask DisposeAsync()
    {
        // Leave the line; failing that, the queue ends by itself.
        if (InLine is { } queue) await db.SortedSetRemoveAsync(queue, token).ContinueWith(_ => { }, TaskScheduler.Default);
        await subscriber.UnsubscribeAsync(channel, onWake).ContinueWith(_ => { }, TaskScheduler.Default);
        woken.Dispose();
    }

    private void OnWake(RedisChannel _, RedisValue payload)
    {
        if (!(payload.IsNullOrEmpty || payload == "*" || payload == token)) return;
        try
        {
            woken.Release();
        }
        catch (Exception error) when (error is SemaphoreFullException or ObjectDisposedException)
        {
            // already woken, or the wait is over
        }
    }
}
