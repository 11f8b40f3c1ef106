// How the Go snippet proofs build: each program is one file of the proofs' Go module
// (test/proofs/go pins go-redis and redigo), built once and then run by every process.
import { goEnv, writeGoModule } from '../../harness/toolchains';

// $1 the program's .go file, $2 the Redis URL, $3 the rounds. `go run` would compile in each
// process, so two contending processes would start up to half a second apart and barely overlap:
// the first builds, the second waits on the lock and reuses the binary, then both start together.
const BUILD_ONCE_THEN_RUN = `set -e
exec 9>"$1.lock"
flock 9
[ -x "$1.bin" ] || (cd "$(dirname "$1")" && go build -o "$1.bin" "$1")
flock -u 9
exec "$1.bin" "$2" "$3"`;

export const goProgram = (client: string) => ({
  command: ['/bin/sh', '-c', BUILD_ONCE_THEN_RUN, `${client}-proof`],
  env: goEnv(),
  setup: writeGoModule,
});
