// Package deps names the Go modules the proofs and compile checks build against, so that
// `go mod tidy` keeps them in go.mod: the client libraries (Valkey GLIDE for
// test/glide-smoke.test.ts), and google/uuid, which lint fixtures (test/fixtures/lint/go) import.
package deps

import (
	_ "github.com/gomodule/redigo/redis"
	_ "github.com/google/uuid"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/valkey-io/valkey-glide/go/v2"
)
