package dev.agenttools.tracking;

import dev.agenttools.store.DynamoClients;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Call records in a DynamoDB table (AWS SDK v2), for teams that outgrow one machine.
 *
 * <p>Key design, chosen for the stats query: partition key {@code pk = "<tool>#<yyyy-MM-dd>"} (one partition per
 * tool and UTC day, so writes spread over days and tools) and sort key
 * {@code sk = "<ts_ms, 13 digits>#<request_id>#<duration_ms's 64 bits, hex>"} (time order, unique: a request id is the
 * caller's own when it sends one, and callers reuse theirs, such as 1 on every line; two calls of one tool in one
 * millisecond with one id and one duration to the nanosecond are one call). A call's item key is made of the record
 * alone, so a record written again (a dead process's journal replayed, see {@link Journal}) overwrites its own item.
 * Items written before the duration was part of the key keep theirs. "Calls of tool T since S" is then one Query per day since S on {@code pk = T#day} with
 * {@code sk >= S}, never a Scan. The table is created (on demand billing) when missing.
 */
final class DynamoDbSink implements CallSink {
    static final int MAX_BATCH_WRITE = 25;
    private static final int MAX_UNPROCESSED_RETRIES = 8;
    /**
     * The client's own bounds. The SDK's defaults for DynamoDB try a request 9 times, each attempt up to the HTTP
     * client's 30 s read timeout: a DynamoDB that accepts connections and never answers held one write for minutes.
     * The recorder tries a refused batch again itself, for as long as the outage lasts, so the client's tries only
     * need to cover a blip; a BatchWriteItem of 25 small items answers in milliseconds.
     */
    static final ClientOverrideConfiguration BOUNDED = ClientOverrideConfiguration.builder()
            .retryStrategy(b -> b.maxAttempts(3)).apiCallAttemptTimeout(Duration.ofSeconds(5))
            .apiCallTimeout(Duration.ofSeconds(12)).build();
    private final DynamoDbClient client;
    private final String table;
    private final List<String> tools;

    /**
     * @param tools the tool names stats may ask about when no tool is named (a Query needs the partition key)
     */
    public DynamoDbSink(DynamoDbClient client, String table, List<String> tools) {
        this(client, table, tools, true);
    }

    private DynamoDbSink(DynamoDbClient client, String table, List<String> tools, boolean createTable) {
        this.client = client;
        this.table = table;
        this.tools = List.copyOf(tools);
        if (createTable) {
            try {
                ensureTable();
            } catch (RuntimeException e) {
                client.close(); // the recorder opens the sink again at its next try: a client a try would pile up
                throw e;
            }
        }
    }

    /** The table to read, creating nothing: empty when it does not exist (no call recorded there yet). */
    static Optional<DynamoDbSink> openReadOnly(DynamoDbClient client, String table, List<String> tools) {
        try {
            client.describeTable(DescribeTableRequest.builder().tableName(table).build());
        } catch (ResourceNotFoundException missing) {
            client.close();
            return Optional.empty();
        }
        return Optional.of(new DynamoDbSink(client, table, tools, false));
    }

    @Override
    public String name() {
        return "dynamodb";
    }

    /** Makes the table when it is missing (several instances may race), and waits until it is ACTIVE. */
    private void ensureTable() {
        DynamoClients.ensureTable(client, CreateTableRequest.builder().tableName(table)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("sk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName("sk").keyType(KeyType.RANGE).build())
                .billingMode(BillingMode.PAY_PER_REQUEST).build());
    }

    static String partitionKey(String tool, Instant ts) {
        return tool + "#" + LocalDate.ofInstant(ts, ZoneOffset.UTC);
    }

    static String sortKey(Instant ts, String requestId, double durationMs) {
        return String.format("%013d#%s#%x", ts.toEpochMilli(), requestId, Double.doubleToLongBits(durationMs));
    }

    @Override
    public void write(List<CallRecord> batch) throws InterruptedException {
        for (int i = 0; i < batch.size(); i += MAX_BATCH_WRITE) {
            List<WriteRequest> requests = new ArrayList<>();
            for (CallRecord r : batch.subList(i, Math.min(batch.size(), i + MAX_BATCH_WRITE))) {
                requests.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item(r)).build()).build());
            }
            try {
                writeAll(requests);
            } catch (ResourceNotFoundException tableGone) {
                // deleted, or a local DynamoDB restarted without its data: made again, as at the start, rather than
                // refusing every record from now on
                ensureTable();
                writeAll(requests);
            }
        }
    }

    /**
     * Throttled (unprocessed items included), a 5xx, or no answer at all (connection refused or reset, a timeout):
     * kept and tried again. Any other answer of DynamoDB's (a ValidationException, access denied) would come again.
     */
    @Override
    public boolean mayPass(Exception refusal) {
        return outage(refusal);
    }

    static boolean outage(Exception e) {
        if (e instanceof AwsServiceException refused) {
            return refused.isThrottlingException() || refused.statusCode() >= 500;
        }
        return e instanceof SdkException; // the client's: no answer came (or items left unprocessed, see writeAll)
    }

    /** BatchWriteItem, retrying the unprocessed items (throttled by DynamoDB) with backoff. */
    private void writeAll(List<WriteRequest> requests) throws InterruptedException {
        Map<String, List<WriteRequest>> pending = Map.of(table, requests);
        for (int attempt = 0; ; attempt++) {
            BatchWriteItemResponse response = client.batchWriteItem(
                    software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest.builder().requestItems(pending).build());
            Map<String, List<WriteRequest>> unprocessed = response.unprocessedItems();
            if (unprocessed == null || unprocessed.isEmpty() || unprocessed.values().stream().allMatch(List::isEmpty)) {
                return;
            }
            if (attempt >= MAX_UNPROCESSED_RETRIES) {
                int left = unprocessed.values().stream().mapToInt(List::size).sum();
                throw SdkException.builder().message(left + " items still unprocessed after " + attempt + " retries").build();
            }
            Thread.sleep(Math.min(2_000, 25L << attempt));
            pending = unprocessed;
        }
    }

    private static Map<String, AttributeValue> item(CallRecord r) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", s(partitionKey(r.toolName(), r.ts())));
        item.put("sk", s(sortKey(r.ts(), r.requestId(), r.durationMs())));
        item.put("ts_ms", n(Long.toString(r.ts().toEpochMilli())));
        item.put("tool_name", s(r.toolName()));
        item.put("agent_name", s(r.agentName()));
        item.put("duration_ms", n(Double.toString(r.durationMs())));
        if (r.backend() != null) {
            item.put("backend", s(r.backend()));
        }
        item.put("strategy", s(r.strategy()));
        item.put("status", s(r.status()));
        if (r.errorCode() != null) {
            item.put("error_code", s(r.errorCode()));
        }
        item.put("items", n(Integer.toString(r.items())));
        item.put("request_id", s(r.requestId()));
        return item;
    }

    private static AttributeValue s(String v) {
        return AttributeValue.builder().s(v).build();
    }

    private static AttributeValue n(String v) {
        return AttributeValue.builder().n(v).build();
    }

    @Override
    public List<CallRecord> read(Instant since, String tool) {
        List<CallRecord> out = new ArrayList<>();
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        for (String t : tool == null ? tools : List.of(tool)) {
            for (LocalDate day = LocalDate.ofInstant(since, ZoneOffset.UTC); !day.isAfter(today); day = day.plusDays(1)) {
                QueryRequest q = QueryRequest.builder().tableName(table)
                        .keyConditionExpression("pk = :pk AND sk >= :since")
                        .expressionAttributeValues(Map.of(":pk", s(t + "#" + day), ":since", s(String.format("%013d", since.toEpochMilli()))))
                        .build();
                client.queryPaginator(q).items().forEach(item -> out.add(record(item)));
            }
        }
        return out;
    }

    private static CallRecord record(Map<String, AttributeValue> item) {
        return new CallRecord(Instant.ofEpochMilli(Long.parseLong(item.get("ts_ms").n())), item.get("tool_name").s(),
                item.get("agent_name").s(), Double.parseDouble(item.get("duration_ms").n()),
                item.containsKey("backend") ? item.get("backend").s() : null, item.get("strategy").s(), item.get("status").s(),
                item.containsKey("error_code") ? item.get("error_code").s() : null, Integer.parseInt(item.get("items").n()),
                item.get("request_id").s());
    }

    @Override
    public void close() {
        client.close();
    }

    /**
     * The client the settings describe. Here, not in {@link Tracking}, so that a Gmail call, which loads Tracking,
     * loads no AWS class (the verifier would, to check this method's types).
     */
    static DynamoDbClient client(TrackingSettings settings) {
        return DynamoClients.client(settings.dynamoEndpoint(), settings.region(), BOUNDED);
    }
}
