module locksmithproof

go 1.26.0

require (
	github.com/gomodule/redigo v1.9.3
	github.com/google/uuid v1.6.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/valkey-io/valkey-glide/go/v2 v2.5.3
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.33.0 // indirect
)
