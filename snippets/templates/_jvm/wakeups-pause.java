«section:pause»
            if (listen(client, options, key, leftMs)) return; // the release may have gone out before it listened: try again at once
«section:sleep»
            if (wakeups != null) {
                wakeups.await(ms);
                return;
            }
«section:close»
            if (wakeups != null) wakeups.close();
            wakeups = null;
