«cjs:module.exports = {
  acquire,
  tryAcquire,
  releaseLock,
  extendLock,
  withLock,
«kinds:exports»
  Lease,
  LockBusyError,
  LeaseLostError,
};»
