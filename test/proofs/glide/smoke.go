// Valkey GLIDE for Go, smoke test (test/glide-smoke.test.ts). Usage:
//
//	smoke standalone <port>          the pack's acquire ($GLIDE_SCRIPT), then GET: prints `ok <reply> <value>`
//	smoke sharded <port> <channel>   a cluster client subscribes to the sharded channel (SSubscribe),
//	                                 prints `subscribed`, then `message <payload>`
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
	"github.com/valkey-io/valkey-glide/go/v2/options"
)

func run(ctx context.Context, mode string, address *config.NodeAddress, channel string) error {
	if mode == "standalone" {
		client, err := glide.NewClient(config.NewClientConfiguration().WithAddress(address))
		if err != nil {
			return err
		}
		defer client.Close()
		script := options.NewScript(os.Getenv("GLIDE_SCRIPT"))
		scriptOptions := options.NewScriptOptions().WithKeys([]string{"glide:smoke"}).WithArgs([]string{"smoke", "60000"})
		reply, err := client.InvokeScriptWithOptions(ctx, *script, *scriptOptions)
		if err != nil {
			return err
		}
		value, err := client.Get(ctx, "glide:smoke")
		if err != nil {
			return err
		}
		fmt.Println("ok", reply, value.Value())
		return nil
	}
	client, err := glide.NewClusterClient(config.NewClusterClientConfiguration().WithAddress(address))
	if err != nil {
		return err
	}
	defer client.Close()
	queue, err := client.GetQueue()
	if err != nil {
		return err
	}
	if err := client.SSubscribe(ctx, []string{channel}, 5000); err != nil {
		return err
	}
	fmt.Println("subscribed")
	message := <-queue.WaitForMessage()
	fmt.Println("message", message.Message)
	return nil
}

func main() {
	port, err := strconv.Atoi(os.Args[2])
	if err == nil {
		channel := ""
		if len(os.Args) > 3 {
			channel = os.Args[3]
		}
		err = run(context.Background(), os.Args[1], &config.NodeAddress{Host: "127.0.0.1", Port: port}, channel)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
