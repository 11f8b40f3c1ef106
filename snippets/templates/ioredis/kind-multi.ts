«include:_js/multi»

/** Whether keys of different hash slots live apart (a Cluster): the multi-key lock takes them slot by slot. */
function isCluster(redis«ts:: LockClient»)«ts:: boolean» {
  return redis.isCluster;
}
