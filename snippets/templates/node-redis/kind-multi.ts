«include:_js/multi»

/** A node-redis cluster (v4, v5) has masters; a client has none. */
function isCluster(redis«ts:: LockClient»)«ts:: boolean» {
  return 'masters' in redis;
}
