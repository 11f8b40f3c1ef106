// Runs one scenario against the Mutex of test/fixtures/fix/go/struct-mutex-goredis.go (fixed or
// not, compiled into this package main) on a real Redis and prints what each call answered, as
// JSON: driver <url> <scenario> <ttl ms>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	url, scenario := os.Args[1], os.Args[2]
	ms, _ := strconv.Atoi(os.Args[3])
	ttl := time.Duration(ms) * time.Millisecond
	options, err := redis.ParseURL(url)
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(options)
	ctx := context.Background()
	made := 0
	make := func(key string, lease time.Duration) *Mutex {
		made++
		return &Mutex{rdb: rdb, key: key, token: fmt.Sprintf("holder-%d-%d", os.Getpid(), made), ttl: lease}
	}
	lock := func(m *Mutex) bool {
		ok, err := m.Lock(ctx)
		if err != nil {
			panic(err)
		}
		return ok
	}
	unlock := func(m *Mutex) string {
		if err := m.Unlock(ctx); err != nil {
			return err.Error()
		}
		return "nil"
	}
	var out []any
	switch scenario {
	case "calls":
		a, b := make("lock:calls", ttl), make("lock:calls", ttl)
		out = append(out, lock(a), rdb.PTTL(ctx, "lock:calls").Val() > 0, lock(b), unlock(a), lock(b), unlock(b))
		out = append(out, rdb.Exists(ctx, "lock:calls").Val())
	case "stale":
		a := make("lock:stale", ttl)
		out = append(out, lock(a))
		time.Sleep(ttl + 200*time.Millisecond)
		b := make("lock:stale", 30*time.Second)
		out = append(out, lock(b), unlock(a), rdb.Exists(ctx, "lock:stale").Val())
	case "acquire":
		out = append(out, lock(make("lock:crash", ttl)))
	}
	text, _ := json.Marshal(out)
	fmt.Println(string(text))
}
