package dev.agenttools.store;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

import java.net.URI;

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
        DynamoDbClientBuilder b = DynamoDbClient.builder().httpClient(UrlConnectionHttpClient.create()).region(Region.of(region));
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
}
