// Built with glide-go.go when the helper carries its wakeups part: its cluster client is given to
// EnableWakeups, so the release wakes its waiters.
package main

import "locksmithproof/locksmith"

func init() { enableWakeups = locksmith.EnableWakeups }
