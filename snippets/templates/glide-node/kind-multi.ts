«include:_js/multi»

/** A GlideClusterClient routes each key to its slot's master: the multi-key lock takes them slot by slot. */
function isCluster(redis«ts:: LockClient»)«ts:: boolean» {
  return redis instanceof GlideClusterClient;
}
