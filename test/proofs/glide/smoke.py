# Valkey GLIDE for Python, smoke test (test/glide-smoke.test.ts). Usage:
#   python smoke.py standalone <port>          the pack's acquire ($GLIDE_SCRIPT), then GET: prints `ok <reply> <value>`
#   python smoke.py sharded <port> <channel>   a cluster client subscribed to the sharded channel (its
#                                              configuration), prints `subscribed`, then `message <payload>`
import asyncio
import os
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
        reply = await client.invoke_script(Script(os.environ["GLIDE_SCRIPT"]), keys=["glide:smoke"], args=["smoke", "60000"])
        print("ok", reply, (await client.get("glide:smoke")).decode(), flush=True)
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
