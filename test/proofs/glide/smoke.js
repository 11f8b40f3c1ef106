// Valkey GLIDE for Node, smoke test (test/glide-smoke.test.ts). Usage:
//   node smoke.js standalone <port>            the pack's acquire ($GLIDE_SCRIPT), then GET: prints `ok <reply> <value>`
//   node smoke.js sharded <port> <channel>     a cluster client subscribes to the sharded channel
//                                              (ssubscribe), prints `subscribed`, then `message <payload>`
const { GlideClient, GlideClusterClient, Script } = require(process.env.GLIDE_PATH);

async function main() {
  const [mode, port, channel] = process.argv.slice(2);
  const addresses = [{ host: '127.0.0.1', port: Number(port) }];
  if (mode === 'standalone') {
    const client = await GlideClient.createClient({ addresses });
    const script = new Script(process.env.GLIDE_SCRIPT);
    const reply = await client.invokeScript(script, { keys: ['glide:smoke'], args: ['smoke', '60000'] });
    console.log(`ok ${reply} ${await client.get('glide:smoke')}`);
    script.release();
    client.close();
    return;
  }
  const client = await GlideClusterClient.createClient({ addresses });
  await client.ssubscribe(new Set([channel]), 5000);
  console.log('subscribed');
  const message = await client.getPubSubMessage();
  console.log(`message ${message.message}`);
  client.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
