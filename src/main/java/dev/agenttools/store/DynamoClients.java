package dev.agenttools.store;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

import java.net.URI;
import java.time.Duration;

/** The DynamoDB client every DynamoDB store uses (call tracking, the instances' shared state). Internal. */
public final class DynamoClients {
    private DynamoClients() {
    }

    /**
     * A client over the JDK's URLConnection HTTP client (one synchronous caller per store needs no pool of its own).
     *
     * @param endpoint a local DynamoDB (dynalite, DynamoDB Local), or null for AWS's
     */
    public static DynamoDbClient client(URI endpoint, String region) {
        return client(endpoint, region, ClientOverrideConfiguration.builder().build());
    }

    /**
     * A client as {@link #client(URI, String)}, with {@code override} (a store answering a tool call bounds its retries:
     * the SDK's default for DynamoDB retries a throttled call 8 times, up to a minute).
     */
    public static DynamoDbClient client(URI endpoint, String region, ClientOverrideConfiguration override) {
        DynamoDbClientBuilder b = DynamoDbClient.builder().httpClient(UrlConnectionHttpClient.create()).region(Region.of(region))
                .overrideConfiguration(override);
        if (endpoint != null) {
            b.endpointOverride(endpoint);
            // the process environment, not our settings: it is what the AWS SDK itself reads keys from
            if (System.getenv("AWS_ACCESS_KEY_ID") == null) {
                // a local DynamoDB takes any signed request: sign with a dummy key
                b.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
            }
        }
        return b.build();
    }

    /**
     * Makes the table {@code create} describes when it is missing, and returns once it is ACTIVE. Several instances
     * starting at once race here: one that finds the table CREATING (another made it a moment ago) must not write
     * yet (DynamoDB answers "Requested resource not found" until it is active), and one whose create loses the race
     * ({@link ResourceInUseException}) waits for the winner's table like for its own.
     */
    public static void ensureTable(DynamoDbClient client, CreateTableRequest create) {
        DescribeTableRequest describe = DescribeTableRequest.builder().tableName(create.tableName()).build();
        try {
            if (client.describeTable(describe).table().tableStatus() == TableStatus.ACTIVE) {
                return;
            }
        } catch (ResourceNotFoundException missing) {
            try {
                client.createTable(create);
            } catch (ResourceInUseException another) {
                // another instance made it at the same moment: wait for it below
            }
        }
        // The SDK's default waiter polls every 20 s; tables are usually ready in a second or two.
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder().client(client)
                .overrideConfiguration(WaiterOverrideConfiguration.builder()
                        .backoffStrategyV2(BackoffStrategy.fixedDelayWithoutJitter(Duration.ofMillis(250))).maxAttempts(240).build())
                .build()) {
            waiter.waitUntilTableExists(describe);
        }
    }
}
