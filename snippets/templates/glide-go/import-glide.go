	glide "github.com/valkey-io/valkey-glide/go/v2"
