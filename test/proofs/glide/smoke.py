# Valkey GLIDE for Python, smoke test (test/glide-smoke.test.ts). Usage:
#   python smoke.py standalone <port>          SET, then GET through a Lua script: prints `ok <value>`
#   python smoke.py sharded <port> <channel>   a cluster client subscribed to the sharded channel (its
#                                              configuration), prints `subscribed`, then `message <payload>`
import asyncio
import sys

from glide import (
    GlideClient,
    GlideClientConfiguration,
    GlideClusterClient,
    GlideClusterClientConfiguration,
    NodeAddress,
    Script,
)


async def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    addresses = [NodeAddress("127.0.0.1", port)]
    if mode == "standalone":
        client = await GlideClient.create(GlideClientConfiguration(addresses))
        await client.set("glide:smoke", "ok")
        value = await client.invoke_script(Script("return redis.call('GET', KEYS[1])"), keys=["glide:smoke"])
        print("ok", value.decode(), flush=True)
    else:
        modes = GlideClusterClientConfiguration.PubSubChannelModes
        subscriptions = GlideClusterClientConfiguration.PubSubSubscriptions(
            channels_and_patterns={modes.Sharded: {sys.argv[3]}}, callback=None, context=None
        )
        client = await GlideClusterClient.create(
            GlideClusterClientConfiguration(addresses, pubsub_subscriptions=subscriptions)
        )
        print("subscribed", flush=True)
        message = await client.get_pubsub_message()
        print("message", message.message.decode(), flush=True)
    await client.close()


asyncio.run(main())
