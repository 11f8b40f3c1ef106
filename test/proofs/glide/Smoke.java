// Valkey GLIDE for Java, smoke test (test/glide-smoke.test.ts). Usage:
//   java Smoke standalone <port>          the pack's acquire ($GLIDE_SCRIPT), then GET: prints `ok <reply> <value>`
//   java Smoke sharded <port> <channel>   a cluster client subscribed to the sharded channel (its
//                                         configuration: 2.1 has no ssubscribe), prints `subscribed`,
//                                         then `message <payload>`
import static glide.api.models.GlideString.gs;

import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.PubSubMessage;
import glide.api.models.Script;
import glide.api.models.commands.ScriptOptions;
import glide.api.models.configuration.ClusterSubscriptionConfiguration;
import glide.api.models.configuration.ClusterSubscriptionConfiguration.PubSubClusterChannelMode;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import glide.api.models.configuration.NodeAddress;

public final class Smoke {
    public static void main(String[] argv) throws Exception {
        NodeAddress address = NodeAddress.builder().host("127.0.0.1").port(Integer.parseInt(argv[1])).build();
        if (argv[0].equals("standalone")) {
            try (GlideClient client =
                    GlideClient.createClient(GlideClientConfiguration.builder().address(address).build()).get();
                    Script script = new Script(System.getenv("GLIDE_SCRIPT"), false)) {
                ScriptOptions options =
                        ScriptOptions.builder().key("glide:smoke").arg("smoke").arg("60000").build();
                Object reply = client.invokeScript(script, options).get();
                System.out.println("ok " + reply + " " + client.get("glide:smoke").get());
            }
        } else {
            ClusterSubscriptionConfiguration subscriptions = ClusterSubscriptionConfiguration.builder()
                    .subscription(PubSubClusterChannelMode.SHARDED, gs(argv[2]))
                    .build();
            GlideClusterClientConfiguration configuration = GlideClusterClientConfiguration.builder()
                    .address(address)
                    .subscriptionConfiguration(subscriptions)
                    .build();
            try (GlideClusterClient client = GlideClusterClient.createClient(configuration).get()) {
                System.out.println("subscribed");
                PubSubMessage message = client.getPubSubMessage().get();
                System.out.println("message " + message.getMessage());
            }
        }
        System.exit(0);
    }
}
