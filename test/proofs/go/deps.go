// Package deps names the Go client libraries the proofs build against, so that `go mod tidy`
// keeps them in go.mod and `go build ./...` here warms the build cache with them.
package deps

import (
	_ "github.com/gomodule/redigo/redis"
	_ "github.com/redis/go-redis/v9"
)
