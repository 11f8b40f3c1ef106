        ReplicaWait waitForReplicas;

        /** Count the acquire as held only once replicas acknowledged it (Locksmith.replicas(1)): see ReplicaWait. */
        public Options waitForReplicas(ReplicaWait wait) {
            return with(copy -> {
                copy.waitForReplicas = wait;
                copy.plainOnly = wait == null ? null : "waitForReplicas";
            });
        }

